// SPDX-License-Identifier: GPL-2.0
/*
 * The device itself: open/close, the version ioctl and how the ioctl
 * dispatcher treats malformed requests.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include <linux/mpichan.h>

#include "kselftest_harness.h"

FIXTURE(dev) {
	int fd;
};

FIXTURE_SETUP(dev)
{
	self->fd = open(MPICHAN_DEVICE, O_RDWR | O_CLOEXEC);
	if (self->fd < 0 && errno == ENOENT)
		SKIP(return, "%s absent: is mpichan.ko loaded?", MPICHAN_DEVICE);
	ASSERT_LE(0, self->fd);
}

FIXTURE_TEARDOWN(dev)
{
	if (self->fd >= 0)
		close(self->fd);
}

TEST_F(dev, open_close_many)
{
	int fds[64];
	int i;

	for (i = 0; i < 64; i++) {
		fds[i] = open(MPICHAN_DEVICE, O_RDWR);
		ASSERT_LE(0, fds[i]);
	}
	for (i = 0; i < 64; i++)
		ASSERT_EQ(0, close(fds[i]));
}

TEST_F(dev, version)
{
	struct mpichan_version v;

	memset(&v, 0xff, sizeof(v));
	ASSERT_EQ(0, ioctl(self->fd, MPICHAN_IOC_VERSION, &v));
	EXPECT_EQ(MPICHAN_ABI_VERSION, v.abi_version);
	EXPECT_LE(2, v.max_ranks);
	EXPECT_TRUE(v.features & MPICHAN_FEAT_COLL);
}

TEST_F(dev, unknown_ioctl_is_enotty)
{
	char buf[64] = { 0 };

	/* Our magic, an unused number. */
	EXPECT_EQ(-1, ioctl(self->fd, _IOR(MPICHAN_IOC_MAGIC, 0x7f, buf), buf));
	EXPECT_EQ(ENOTTY, errno);
	/* Another driver's magic. */
	EXPECT_EQ(-1, ioctl(self->fd, _IOR('T', 0x00, int), buf));
	EXPECT_EQ(ENOTTY, errno);
	/* A known number with the wrong direction. */
	EXPECT_EQ(-1, ioctl(self->fd, _IOW(MPICHAN_IOC_MAGIC, 0x00,
					   struct mpichan_version), buf));
	EXPECT_EQ(ENOTTY, errno);
	/* A plain terminal ioctl on the device. */
	EXPECT_EQ(-1, ioctl(self->fd, TCGETS, buf));
	EXPECT_EQ(ENOTTY, errno);
}

TEST_F(dev, bad_pointer_is_efault)
{
	EXPECT_EQ(-1, ioctl(self->fd, MPICHAN_IOC_VERSION, NULL));
	EXPECT_EQ(EFAULT, errno);
	EXPECT_EQ(-1, ioctl(self->fd, MPICHAN_IOC_VERSION, (void *)8));
	EXPECT_EQ(EFAULT, errno);
	/* A kernel address. */
	EXPECT_EQ(-1, ioctl(self->fd, MPICHAN_IOC_VERSION,
			    (void *)0xffff888000000000UL));
	EXPECT_EQ(EFAULT, errno);
}

TEST_F(dev, short_argument_is_einval)
{
	char buf[sizeof(struct mpichan_version)];
	unsigned long cmd;

	cmd = _IOC(_IOC_READ, MPICHAN_IOC_MAGIC, 0x00, sizeof(buf) - 1);
	EXPECT_EQ(-1, ioctl(self->fd, cmd, buf));
	EXPECT_EQ(EINVAL, errno);
	cmd = _IOC(_IOC_READ, MPICHAN_IOC_MAGIC, 0x00, 0);
	EXPECT_EQ(-1, ioctl(self->fd, cmd, buf));
	EXPECT_EQ(EINVAL, errno);
}

TEST_F(dev, longer_argument_gets_zeroed_tail)
{
	/* A caller built against a newer header: known part filled in,
	 * the part this module does not know zeroed.
	 */
	struct {
		struct mpichan_version v;
		char tail[24];
	} big;
	unsigned long cmd;
	size_t i;

	memset(&big, 0xa5, sizeof(big));
	cmd = _IOC(_IOC_READ, MPICHAN_IOC_MAGIC, 0x00, sizeof(big));
	ASSERT_EQ(0, ioctl(self->fd, cmd, &big));
	EXPECT_EQ(MPICHAN_ABI_VERSION, big.v.abi_version);
	for (i = 0; i < sizeof(big.tail); i++)
		ASSERT_EQ(0, big.tail[i]);
}

TEST_HARNESS_MAIN
