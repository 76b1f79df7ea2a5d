// SPDX-License-Identifier: MIT
/*
 * mpichan-info: what the loaded module speaks, over the raw uapi.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include <linux/mpichan.h>

int main(void)
{
	struct mpichan_version v;
	int fd;

	fd = open(MPICHAN_DEVICE, O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "mpichan-info: %s: %s\n", MPICHAN_DEVICE,
			strerror(errno));
		return 1;
	}
	if (ioctl(fd, MPICHAN_IOC_VERSION, &v) < 0) {
		fprintf(stderr, "mpichan-info: version: %s\n", strerror(errno));
		return 1;
	}
	printf("mpichan abi %u, max ranks %u, features 0x%llx\n",
	       v.abi_version, v.max_ranks, (unsigned long long)v.features);
	close(fd);
	return 0;
}
