// SPDX-License-Identifier: GPL-2.0
/*
 * hold EVENT SECONDS: count EVENT (user mode) on the calling thread for
 * SECONDS, so that the module has a context and holds the PMU; or print
 * what libpctr says when it cannot ("hold: set: <pctr_strerror>").
 * testing/admintest runs it in guests.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "pctr.h"

int main(int argc, char **argv)
{
	pctr_t *p;

	if (argc != 3) {
		fprintf(stderr, "usage: hold EVENT SECONDS\n");
		return 2;
	}
	p = pctr_open(O_RDWR);
	if (!p) {
		printf("hold: open: %s\n", pctr_strerror(errno));
		return 1;
	}
	if (pctr_set_event(p, 0, argv[1], PCTR_U | PCTR_EN) < 0) {
		printf("hold: set: %s\n", pctr_strerror(errno));
		return 1;
	}
	printf("hold: counting %s\n", argv[1]);
	fflush(stdout);
	sleep(atoi(argv[2]));
	pctr_close(p);
	return 0;
}
