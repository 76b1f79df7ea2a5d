// SPDX-License-Identifier: MIT
/*
 * Where mpiexec puts each rank: --map-by, --bind-to and
 * --report-bindings, over the machine's topology as hwloc reads it.
 *
 * Mapping by a level deals the ranks round-robin over that level's
 * objects (by socket: rank 0 on package 0, rank 1 on package 1, ...),
 * and inside an object to its cores in turn, so every rank has a place:
 * one hardware thread.  Binding confines a rank to the object of the
 * binding level that holds its place: its core, its package, its NUMA
 * node, or nothing.  Ranks placed on the same object (more ranks than
 * objects) share it.
 *
 * Unbound ranks of an oversubscribed job can move to whichever CPU is
 * idle, which is why nothing is bound by default then; bound ranks keep
 * their caches warm and cannot be moved onto each other, which is why
 * they are bound by default otherwise (as Open MPI does).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <hwloc.h>

#include "place.h"

static hwloc_topology_t topo;
static hwloc_obj_t *where;	/* per rank: its hardware thread */
static hwloc_bitmap_t *bound;	/* per rank: its binding, or NULL */
static const char *why_free;	/* why ranks are not bound */

static const char *const level_names[] = {
	[PLACE_HWTHREAD] = "hwthread",
	[PLACE_CORE] = "core",
	[PLACE_NUMA] = "numa",
	[PLACE_SOCKET] = "socket",
	[PLACE_NONE] = "none",
};

static const hwloc_obj_type_t level_types[] = {
	[PLACE_HWTHREAD] = HWLOC_OBJ_PU,
	[PLACE_CORE] = HWLOC_OBJ_CORE,
	[PLACE_NUMA] = HWLOC_OBJ_NUMANODE,
	[PLACE_SOCKET] = HWLOC_OBJ_PACKAGE,
};

int place_level_parse(const char *name, int allow_none)
{
	int l;

	for (l = PLACE_HWTHREAD; l <= PLACE_NONE; l++)
		if (!strcmp(name, level_names[l]) &&
		    (l != PLACE_NONE || allow_none))
			return l;
	/* The other spellings MPICH and Open MPI accept. */
	if (!strcmp(name, "package"))
		return PLACE_SOCKET;
	if (!strcmp(name, "numanode"))
		return PLACE_NUMA;
	if (!strcmp(name, "pu") || !strcmp(name, "hwthreads"))
		return PLACE_HWTHREAD;
	return -1;
}

static void fail(const char *what)
{
	fprintf(stderr, "mpiexec: %s: %s\n", what, strerror(errno));
	exit(1);
}

static int nobjs(enum place_level l)
{
	int n = hwloc_get_nbobjs_by_type(topo, level_types[l]);

	return n > 0 ? n : 1;
}

static hwloc_obj_t obj(enum place_level l, int i)
{
	hwloc_obj_t o = hwloc_get_obj_by_type(topo, level_types[l], (unsigned)i);

	return o ? o : hwloc_get_root_obj(topo);
}

/* The object of level l that holds hardware thread pu. */
static hwloc_obj_t holding(enum place_level l, hwloc_obj_t pu)
{
	int i, n = nobjs(l);

	for (i = 0; i < n; i++)
		if (hwloc_bitmap_isset(obj(l, i)->cpuset, pu->os_index))
			return obj(l, i);
	return hwloc_get_root_obj(topo);
}

/* The k-th hardware thread of o, dealt core by core (k wraps). */
static hwloc_obj_t thread_of(hwloc_obj_t o, int k)
{
	int ncores = hwloc_get_nbobjs_inside_cpuset_by_type(topo, o->cpuset,
							     HWLOC_OBJ_CORE);
	int npus = hwloc_get_nbobjs_inside_cpuset_by_type(topo, o->cpuset,
							   HWLOC_OBJ_PU);
	hwloc_obj_t core;

	if (ncores <= 0)	/* no cores known: threads in turn */
		return hwloc_get_obj_inside_cpuset_by_type(topo, o->cpuset,
				HWLOC_OBJ_PU, (unsigned)(k % (npus > 0 ? npus : 1)));
	core = hwloc_get_obj_inside_cpuset_by_type(topo, o->cpuset,
						   HWLOC_OBJ_CORE,
						   (unsigned)(k % ncores));
	/* A second pass over the cores takes their second threads. */
	return hwloc_get_obj_inside_cpuset_by_type(topo, core->cpuset,
			HWLOC_OBJ_PU, (unsigned)((k / ncores) %
			hwloc_get_nbobjs_inside_cpuset_by_type(topo,
					core->cpuset, HWLOC_OBJ_PU)));
}

/*
 * hwloc loads every plugin it finds when the first topology is made:
 * Debian's build has PCI, OpenCL, GL and libxml2 ones, each with the
 * libraries it pulls in, and placement needs none of them (CPUs and
 * NUMA nodes only).  Keep them out, unless the user said which to keep
 * out, and give the ranks the environment as it was: a rank's own hwloc
 * may want its GPUs.  Loading the topology takes about 2 ms instead of
 * 5 on a real CPU, 0.15 s instead of 0.7 under emulation.
 */
#define PLACE_PLUGINS_OUT "hwloc_pci,hwloc_opencl,hwloc_gl,hwloc_cuda," \
	"hwloc_nvml,hwloc_rsmi,hwloc_levelzero,hwloc_xml_libxml"

static int load_topology(void)
{
	int own = !getenv("HWLOC_PLUGINS_BLACKLIST"), err;

	if (own && setenv("HWLOC_PLUGINS_BLACKLIST", PLACE_PLUGINS_OUT, 1))
		return -1;
	err = hwloc_topology_init(&topo) < 0 || hwloc_topology_load(topo) < 0;
	if (own)
		unsetenv("HWLOC_PLUGINS_BLACKLIST");
	return err ? -1 : 0;
}

void place_plan(const struct place_opts *o, int nranks)
{
	enum place_level map = o->map, bind = o->bind;
	int r, n, cores;

	if (load_topology() < 0)
		fail("hwloc cannot read this machine's topology");
	where = calloc((size_t)nranks, sizeof(*where));
	bound = calloc((size_t)nranks, sizeof(*bound));
	if (!where || !bound)
		fail("placing ranks");
	cores = nobjs(PLACE_CORE);
	if (map == PLACE_DEFAULT)
		map = PLACE_CORE;
	if (bind == PLACE_DEFAULT) {
		bind = nranks <= cores ? PLACE_CORE : PLACE_NONE;
		if (bind == PLACE_NONE)
			why_free = "more ranks than cores: not bound by default";
	} else if (bind == PLACE_NONE) {
		why_free = "--bind-to none";
	}
	n = nobjs(map);
	for (r = 0; r < nranks; r++) {
		where[r] = thread_of(obj(map, r % n), r / n);
		if (!where[r])
			where[r] = hwloc_get_obj_by_type(topo, HWLOC_OBJ_PU, 0);
		if (bind == PLACE_NONE)
			continue;
		bound[r] = hwloc_bitmap_dup(holding(bind, where[r])->cpuset);
		if (!bound[r])
			fail("placing ranks");
	}
}

/* "package=0 numa=0 l3=0 l2=1 core=1 pu=1": logical indexes. */
static void describe(hwloc_obj_t pu, char *buf, size_t len)
{
	static const struct {
		const char *name;
		hwloc_obj_type_t type;
	} levels[] = {
		{ "package", HWLOC_OBJ_PACKAGE },
		{ "l3", HWLOC_OBJ_L3CACHE },
		{ "l2", HWLOC_OBJ_L2CACHE },
		{ "core", HWLOC_OBJ_CORE },
	};
	hwloc_obj_t o;
	size_t i, at = 0;

	buf[0] = 0;
	for (i = 0; i < sizeof(levels) / sizeof(levels[0]); i++) {
		o = hwloc_get_ancestor_obj_by_type(topo, levels[i].type, pu);
		if (o && at < len)
			at += (size_t)snprintf(buf + at, len - at, "%s=%u ",
					       levels[i].name, o->logical_index);
	}
	o = holding(PLACE_NUMA, pu);
	if (o->type == HWLOC_OBJ_NUMANODE && at < len)
		at += (size_t)snprintf(buf + at, len - at, "numa=%u ",
				       o->logical_index);
	if (at < len)
		snprintf(buf + at, len - at, "pu=%u", pu->logical_index);
}

int place_apply(int r)
{
	char buf[128];

	describe(where[r], buf, sizeof(buf));
	setenv("MPICHAN_PLACE", buf, 1);
	if (!bound[r])
		return 0;
	return hwloc_set_cpubind(topo, bound[r], HWLOC_CPUBIND_PROCESS);
}

void place_report(int nranks)
{
	char *cpus = NULL, place[128];
	int r;

	for (r = 0; r < nranks; r++) {
		describe(where[r], place, sizeof(place));
		if (!bound[r]) {
			fprintf(stderr, "mpiexec: rank %d not bound (%s); placed at %s\n",
				r, why_free ? why_free : "", place);
			continue;
		}
		if (hwloc_bitmap_list_asprintf(&cpus, bound[r]) < 0)
			fail("--report-bindings");
		fprintf(stderr, "mpiexec: rank %d bound to cpus %s; placed at %s\n",
			r, cpus, place);
		free(cpus);
	}
}
