// SPDX-License-Identifier: MIT
/*
 * Where mpiexec put the ranks, read from each rank's own CPU affinity
 * (sched_getaffinity) and the kernel's topology in sysfs, not from
 * hwloc, which placed them:
 *
 *   BIND_EXPECT unset   mpiexec's defaults: with no more ranks than
 *                       cores, each rank bound to one whole core, no
 *                       two on the same; with more, none bound
 *   BIND_EXPECT=none    none bound (--bind-to none)
 *   BIND_EXPECT=core    each bound to one whole core, ranks dealt over
 *                       the cores in turn (--bind-to core)
 *   BIND_EXPECT=hwthread each bound to one hardware thread
 *
 * and every rank's MPICHAN_PLACE names its core and hardware thread.
 */
#define _GNU_SOURCE
#include <sched.h>

#include "test.h"

static int ncpus;

/* The CPUs of cpu's core (its thread siblings) into set. */
static void core_of(int cpu, cpu_set_t *set)
{
	char path[128], list[256], *p = list, *end;
	unsigned long a, b;
	FILE *f;

	CPU_ZERO(set);
	snprintf(path, sizeof(path),
		 "/sys/devices/system/cpu/cpu%d/topology/thread_siblings_list",
		 cpu);
	f = fopen(path, "r");
	if (!f || !fgets(list, sizeof(list), f)) {
		CPU_SET(cpu, set);	/* no topology: a CPU is its core */
		if (f)
			fclose(f);
		return;
	}
	fclose(f);
	while (*p && *p != '\n') {
		a = strtoul(p, &end, 10);
		b = *end == '-' ? strtoul(end + 1, &end, 10) : a;
		for (; a <= b; a++)
			CPU_SET((int)a, set);
		p = *end == ',' ? end + 1 : end;
		if (p == end && *p && *p != '\n')
			break;
	}
}

static int ncores(void)
{
	cpu_set_t seen, core;
	int cpu, n = 0;

	CPU_ZERO(&seen);
	for (cpu = 0; cpu < ncpus; cpu++) {
		if (CPU_ISSET(cpu, &seen))
			continue;
		core_of(cpu, &core);
		CPU_OR(&seen, &seen, &core);
		n++;
	}
	return n;
}

static int first_cpu(const cpu_set_t *set)
{
	int cpu;

	for (cpu = 0; cpu < CPU_SETSIZE; cpu++)
		if (CPU_ISSET(cpu, set))
			return cpu;
	return -1;
}

int main(int argc, char **argv)
{
	const char *expect = getenv("BIND_EXPECT");
	const char *place = getenv("MPICHAN_PLACE");
	cpu_set_t mine, core, *all;
	int cores, first, bound, i, j;

	t_init(&argc, &argv);
	ncpus = (int)sysconf(_SC_NPROCESSORS_ONLN);
	cores = ncores();
	CHECK(sched_getaffinity(0, sizeof(mine), &mine) == 0, "sched_getaffinity");
	CHECK(place && strstr(place, "core=") && strstr(place, "pu="),
	      "MPICHAN_PLACE is '%s'", place ? place : "(unset)");
	all = malloc(sizeof(*all) * (size_t)t_size);
	CHECK(all, "no memory");
	MPI_OK(MPI_Allgather(&mine, sizeof(mine), MPI_BYTE, all, sizeof(mine),
			     MPI_BYTE, MPI_COMM_WORLD));

	first = first_cpu(&mine);
	core_of(first, &core);
	bound = CPU_COUNT(&mine) < ncpus;
	if (!expect)
		expect = t_size <= cores ? "core" : "none";
	if (!strcmp(expect, "none")) {
		CHECK(!bound, "rank bound to %d of %d CPUs", CPU_COUNT(&mine),
		      ncpus);
	} else if (!strcmp(expect, "core")) {
		CHECK(CPU_EQUAL(&mine, &core),
		      "bound to %d CPUs from %d, not one whole core",
		      CPU_COUNT(&mine), first);
		/* Dealt in turn: ranks share a core only when they must. */
		for (i = 0; i < t_size; i++)
			for (j = i + 1; j < t_size && j < i + cores; j++)
				CHECK(!CPU_EQUAL(&all[i], &all[j]),
				      "ranks %d and %d on the same core of %d",
				      i, j, cores);
	} else if (!strcmp(expect, "hwthread")) {
		CHECK(CPU_COUNT(&mine) == 1, "bound to %d CPUs, not one",
		      CPU_COUNT(&mine));
		for (i = 0; i < t_size; i++)
			for (j = i + 1; j < t_size && j < i + ncpus; j++)
				CHECK(!CPU_EQUAL(&all[i], &all[j]),
				      "ranks %d and %d on the same thread", i, j);
	} else {
		CHECK(0, "BIND_EXPECT=%s: none, core or hwthread", expect);
	}
	free(all);
	MPI_Barrier(MPI_COMM_WORLD);
	if (t_rank == 0)
		printf("bind: %d ranks, %d cores, %d CPUs: %s\n", t_size, cores,
		       ncpus, expect);
	MPI_Finalize();
	return 0;
}
