// SPDX-License-Identifier: GPL-2.0
/*
 * A bounded run of the uapi fuzzer, tools/fuzz/mpichan-fuzz (built into
 * build/tools/, found relative to this binary in build/selftests/mpichan/).
 * The seed comes from the clock and is printed: replay a failure with
 * tools/vm/run -- build/tools/mpichan-fuzz --seed N.
 * MPICHAN_FUZZ_SECONDS sets the length (default 20).
 */
#include <libgen.h>
#include <limits.h>

#include "kselftest_harness.h"
#include "helpers.h"

FIXTURE(fuzz) {
	char path[PATH_MAX];
};

FIXTURE_SETUP(fuzz)
{
	char self_path[PATH_MAX];
	ssize_t n;

	MC_REQUIRE_DEVICE();
	n = readlink("/proc/self/exe", self_path, sizeof(self_path) - 1);
	ASSERT_LT(0, n);
	self_path[n] = 0;
	snprintf(self->path, sizeof(self->path), "%s/../../tools/mpichan-fuzz",
		 dirname(self_path));
	if (access(self->path, X_OK))
		SKIP(return, "tools/mpichan-fuzz not built");
}

FIXTURE_TEARDOWN(fuzz)
{
}

TEST_F_TIMEOUT(fuzz, bounded_run, 240)
{
	const char *env = getenv("MPICHAN_FUZZ_SECONDS");
	char seed[32], secs[16], line[4096];
	unsigned long long s = (unsigned long long)time(NULL) * 1000003ULL ^
		(unsigned long long)getpid();
	int pfd[2], status;
	FILE *out;
	pid_t pid;

	s %= 1000000000000ULL;
	snprintf(seed, sizeof(seed), "%llu", s);
	snprintf(secs, sizeof(secs), "%d", env && atoi(env) > 0 ? atoi(env) : 20);
	TH_LOG("seed %s, %s s: replay with %s --seed %s", seed, secs, self->path, seed);
	ASSERT_EQ(0, pipe(pfd));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		dup2(pfd[1], 1);
		dup2(pfd[1], 2);
		close(pfd[0]);
		execl(self->path, "mpichan-fuzz", "--seed", seed, "--seconds", secs,
		      (char *)NULL);
		_exit(127);
	}
	close(pfd[1]);
	/* Its lines as TAP comments. */
	out = fdopen(pfd[0], "r");
	ASSERT_NE(NULL, out);
	while (fgets(line, sizeof(line), out))
		printf("# %s%s", line, strchr(line, '\n') ? "" : "\n");
	fclose(out);
	/* The harness ends a test with _exit(): stdio would drop the lines. */
	fflush(stdout);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	ASSERT_EQ(0, WEXITSTATUS(status)) {
		TH_LOG("mpichan-fuzz failed: replay with --seed %s", seed);
	}
}

TEST_HARNESS_MAIN
