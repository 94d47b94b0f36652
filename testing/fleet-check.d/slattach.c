// SPDX-License-Identifier: GPL-2.0
/*
 * testing/fleet-check.d/slattach: SLIP on a serial port, as long as this
 * runs (busybox in Debian has no slattach): the port raw, 8 bits, no
 * flow control, 115200 baud, then the SLIP line discipline (sl0).
 *
 *   slattach /dev/ttyS1 &
 */
#include <fcntl.h>
#include <stdio.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	int ldisc = N_SLIP, fd;
	struct termios t;

	fd = open(argc > 1 ? argv[1] : "/dev/ttyS1", O_RDWR | O_NOCTTY);
	if (fd < 0 || tcgetattr(fd, &t)) {
		perror("slattach");
		return 1;
	}
	cfmakeraw(&t);
	t.c_cflag |= CLOCAL | CREAD;
	t.c_cflag &= ~CRTSCTS;
	cfsetspeed(&t, B115200);
	if (tcsetattr(fd, TCSANOW, &t) || ioctl(fd, TIOCSETD, &ldisc)) {
		perror("slattach");
		return 1;
	}
	for (;;)
		pause();
}
