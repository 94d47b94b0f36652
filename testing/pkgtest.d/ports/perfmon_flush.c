/*
 * Sun Perfmon's example (sun-perfmon-ultrasparc page, "an example code
 * segment which opens the device and issues a cache flush request on
 * the current CPU"), as the page prints it.  testing/pkgtest builds it
 * against the installed Perfmon overlay, pkg-config pctr-perfmon.  Its
 * K&R main() and undeclared exit() draw the compiler's warnings: built
 * without -Werror, as a user would.
 */
#include <stdio.h>
#include <fcntl.h>
#include "perfmon.h"

main()
{
	int fd;
	int rc;

	fd = open("/dev/perfmon", O_RDONLY);
	if (fd == -1) {
		perror("open(/dev/perfmon)");
		exit(1);
	}
	/* Tell the driver to flush the cache of the current CPU */
	rc = ioctl(fd, PERFMON_FLUSH_CACHE);
	if (rc < 0) {
		perror("ioctl(PERFMON_FLUSH_CACHE)");
		exit(1);
	}
}
