// SPDX-License-Identifier: MIT
/*
 * What a derived type was built from: MPI_Type_get_envelope and
 * MPI_Type_get_contents (MPI-3.1 section 4.1.13).  Every public
 * constructor records its combiner and arguments with the new type
 * (lm_dt_made), holding the types it was given, so that a program or a
 * library that decodes types (an I/O layer flattening a file view) can
 * walk one back down to the predefined types.  The derived types
 * get_contents hands out are new handles to equivalent types carrying
 * the same record; the program frees them.
 */

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "datatype/datatype.h"

struct lm_contents {
	int combiner;
	int ni, na, nd;
	int nc;			/* large counts: built by an MPI-4.0 _c constructor */
	MPI_Aint *aints;
	MPI_Datatype *types;
	MPI_Count *counts;
	int *ints;
};

/* Derived types live in a box (datatype.h); the record is kept there. */
static struct lm_contents **slot(MPI_Datatype dt)
{
	return &caa_container_of(dt, struct lm_dt_box, dt)->contents;
}

static struct lm_contents *contents_new(int combiner, int ni, int na, int nd,
					int nc)
{
	struct lm_contents *c;

	c = malloc(sizeof(*c) + (size_t)na * sizeof(MPI_Aint) +
		   (size_t)nd * sizeof(MPI_Datatype) +
		   (size_t)nc * sizeof(MPI_Count) + (size_t)ni * sizeof(int));
	if (!c)
		return NULL;
	c->combiner = combiner;
	c->ni = ni;
	c->na = na;
	c->nd = nd;
	c->nc = nc;
	c->aints = (MPI_Aint *)(c + 1);
	c->types = (MPI_Datatype *)(c->aints + na);
	c->counts = (MPI_Count *)(c->types + nd);
	c->ints = (int *)(c->counts + nc);
	return c;
}

/* Keep c in dt, holding the types it names. */
static void contents_set(MPI_Datatype dt, struct lm_contents *c)
{
	int i;

	for (i = 0; i < c->nd; i++)
		lm_dt_hold(c->types[i]);
	*slot(dt) = c;
}

int lm_dt_made(const char *fn, int err, MPI_Datatype *newtype, int combiner,
	       const struct lm_ints *ints, int npieces, const MPI_Aint *aints,
	       int na, const MPI_Datatype *types, int nd)
{
	struct lm_contents *c = NULL;
	int64_t ni = 0;
	int i, k;

	if (err)
		return err;
	for (i = 0; i < npieces; i++)
		ni += ints[i].n;
	if (ni <= INT_MAX)
		c = contents_new(combiner, (int)ni, na, nd, 0);
	if (!c) {
		lm_dt_release(*newtype);
		*newtype = MPI_DATATYPE_NULL;
		return lm_error(NULL, fn, ni > INT_MAX ? MPI_ERR_COUNT :
				MPI_ERR_NO_MEM, "%s", ni > INT_MAX ?
				"more arguments than MPI_Type_get_envelope can count" :
				"out of memory for a datatype");
	}
	for (i = 0, k = 0; i < npieces; k += ints[i++].n)
		if (ints[i].n)
			memcpy(c->ints + k, ints[i].p, (size_t)ints[i].n * sizeof(int));
	if (na)
		memcpy(c->aints, aints, (size_t)na * sizeof(MPI_Aint));
	if (nd)
		memcpy(c->types, types, (size_t)nd * sizeof(MPI_Datatype));
	contents_set(*newtype, c);
	return MPI_SUCCESS;
}

int lm_dt_made_c(const char *fn, int err, MPI_Datatype *newtype,
		 int combiner, const int *ints, int ni, const MPI_Count *counts,
		 int64_t nc, const MPI_Datatype *types, int nd)
{
	struct lm_contents *c = NULL;

	if (err)
		return err;
	if (nc <= INT_MAX)
		c = contents_new(combiner, ni, 0, nd, (int)nc);
	if (!c) {
		lm_dt_release(*newtype);
		*newtype = MPI_DATATYPE_NULL;
		return lm_error(NULL, fn, nc > INT_MAX ? MPI_ERR_COUNT :
				MPI_ERR_NO_MEM, "%s", nc > INT_MAX ?
				"more arguments than MPI_Type_get_envelope_c can count" :
				"out of memory for a datatype");
	}
	if (ni)
		memcpy(c->ints, ints, (size_t)ni * sizeof(int));
	if (nc)
		memcpy(c->counts, counts, (size_t)nc * sizeof(MPI_Count));
	if (nd)
		memcpy(c->types, types, (size_t)nd * sizeof(MPI_Datatype));
	/* A type an int constructor made for us: its record goes. */
	lm_dt_contents_drop(*newtype);
	contents_set(*newtype, c);
	return MPI_SUCCESS;
}

void lm_dt_contents_drop(MPI_Datatype dt)
{
	struct lm_contents *c;
	int i;

	if (dt->predefined)
		return;
	c = *slot(dt);
	if (!c)
		return;
	*slot(dt) = NULL;
	for (i = 0; i < c->nd; i++)
		lm_dt_release(c->types[i]);
	free(c);
}

static const struct lm_contents *contents_of(MPI_Datatype dt)
{
	return dt->predefined ? NULL : *slot(dt);
}

int MPI_Type_get_envelope(MPI_Datatype datatype, int *num_integers,
			  int *num_addresses, int *num_datatypes,
			  int *combiner)
{
	LM_GUARD();
	static const char fn[] = "MPI_Type_get_envelope";
	const struct lm_contents *c;

	lm_check_init(fn);
	if (!lm_datatype_valid(datatype))
		return lm_error(NULL, fn, MPI_ERR_TYPE, "%s",
				lm_datatype_why(datatype));
	if (!num_integers || !num_addresses || !num_datatypes || !combiner)
		return lm_error(NULL, fn, MPI_ERR_ARG, "an output is NULL");
	c = contents_of(datatype);
	if (c && c->nc)
		return lm_error(NULL, fn, MPI_ERR_TYPE,
				"a large-count constructor (MPI_Type_*_c) built it: its envelope needs MPI_Type_get_envelope_c");
	*num_integers = c ? c->ni : 0;
	*num_addresses = c ? c->na : 0;
	*num_datatypes = c ? c->nd : 0;
	*combiner = c ? c->combiner : MPI_COMBINER_NAMED;
	return MPI_SUCCESS;
}

/* A new handle to a type equivalent to t, with t's record. */
static int type_clone(const char *fn, MPI_Datatype t, MPI_Datatype *out)
{
	const struct lm_contents *c = contents_of(t);
	struct lm_ints ints;

	if (t->predefined) {
		*out = t;
		return MPI_SUCCESS;
	}
	if (!c)
		return lm_dt_dup(fn, t, out);
	if (c->nc)
		return lm_dt_made_c(fn, lm_dt_dup(fn, t, out), out, c->combiner,
				    c->ints, c->ni, c->counts, c->nc, c->types,
				    c->nd);
	ints.p = c->ints;
	ints.n = c->ni;
	return lm_dt_made(fn, lm_dt_dup(fn, t, out), out, c->combiner, &ints, 1,
			  c->aints, c->na, c->types, c->nd);
}

int MPI_Type_get_contents(MPI_Datatype datatype, int max_integers,
			  int max_addresses, int max_datatypes,
			  int array_of_integers[],
			  MPI_Aint array_of_addresses[],
			  MPI_Datatype array_of_datatypes[])
{
	LM_GUARD();
	static const char fn[] = "MPI_Type_get_contents";
	const struct lm_contents *c;
	int i, err;

	lm_check_init(fn);
	if (!lm_datatype_valid(datatype))
		return lm_error(NULL, fn, MPI_ERR_TYPE, "%s",
				lm_datatype_why(datatype));
	c = contents_of(datatype);
	if (!c)
		return lm_error(NULL, fn, MPI_ERR_TYPE,
				"%s is predefined (MPI_COMBINER_NAMED): it has no contents",
				datatype->name);
	if (c->nc)
		return lm_error(NULL, fn, MPI_ERR_TYPE,
				"a large-count constructor (MPI_Type_*_c) built it: its contents need MPI_Type_get_contents_c");
	if (max_integers < c->ni || max_addresses < c->na ||
	    max_datatypes < c->nd)
		return lm_error(NULL, fn, MPI_ERR_ARG,
				"arrays too short: it needs %d integers, %d addresses, %d datatypes",
				c->ni, c->na, c->nd);
	if ((c->ni && !array_of_integers) || (c->na && !array_of_addresses) ||
	    (c->nd && !array_of_datatypes))
		return lm_error(NULL, fn, MPI_ERR_ARG, "an output array is NULL");
	for (i = 0; i < c->nd; i++) {
		err = type_clone(fn, c->types[i], &array_of_datatypes[i]);
		if (err) {
			while (i--)
				lm_dt_release(array_of_datatypes[i]);
			return err;
		}
	}
	if (c->ni)
		memcpy(array_of_integers, c->ints, (size_t)c->ni * sizeof(int));
	if (c->na)
		memcpy(array_of_addresses, c->aints, (size_t)c->na * sizeof(MPI_Aint));
	return MPI_SUCCESS;
}

int MPI_Type_get_envelope_c(MPI_Datatype datatype, MPI_Count *num_integers,
			    MPI_Count *num_addresses,
			    MPI_Count *num_large_counts,
			    MPI_Count *num_datatypes, int *combiner)
{
	LM_GUARD();
	static const char fn[] = "MPI_Type_get_envelope_c";
	const struct lm_contents *c;

	lm_check_init(fn);
	if (!lm_datatype_valid(datatype))
		return lm_error(NULL, fn, MPI_ERR_TYPE, "%s",
				lm_datatype_why(datatype));
	if (!num_integers || !num_addresses || !num_large_counts ||
	    !num_datatypes || !combiner)
		return lm_error(NULL, fn, MPI_ERR_ARG, "an output is NULL");
	c = contents_of(datatype);
	*num_integers = c ? c->ni : 0;
	*num_addresses = c ? c->na : 0;
	*num_large_counts = c ? c->nc : 0;
	*num_datatypes = c ? c->nd : 0;
	*combiner = c ? c->combiner : MPI_COMBINER_NAMED;
	return MPI_SUCCESS;
}

int MPI_Type_get_contents_c(MPI_Datatype datatype, MPI_Count max_integers,
			    MPI_Count max_addresses, MPI_Count max_large_counts,
			    MPI_Count max_datatypes, int array_of_integers[],
			    MPI_Aint array_of_addresses[],
			    MPI_Count array_of_large_counts[],
			    MPI_Datatype array_of_datatypes[])
{
	LM_GUARD();
	static const char fn[] = "MPI_Type_get_contents_c";
	const struct lm_contents *c;
	int i, err;

	lm_check_init(fn);
	if (!lm_datatype_valid(datatype))
		return lm_error(NULL, fn, MPI_ERR_TYPE, "%s",
				lm_datatype_why(datatype));
	c = contents_of(datatype);
	if (!c)
		return lm_error(NULL, fn, MPI_ERR_TYPE,
				"%s is predefined (MPI_COMBINER_NAMED): it has no contents",
				datatype->name);
	if (max_integers < c->ni || max_addresses < c->na ||
	    max_large_counts < c->nc || max_datatypes < c->nd)
		return lm_error(NULL, fn, MPI_ERR_ARG,
				"arrays too short: it needs %d integers, %d addresses, %d large counts, %d datatypes",
				c->ni, c->na, c->nc, c->nd);
	if ((c->ni && !array_of_integers) || (c->na && !array_of_addresses) ||
	    (c->nc && !array_of_large_counts) || (c->nd && !array_of_datatypes))
		return lm_error(NULL, fn, MPI_ERR_ARG, "an output array is NULL");
	for (i = 0; i < c->nd; i++) {
		err = type_clone(fn, c->types[i], &array_of_datatypes[i]);
		if (err) {
			while (i--)
				lm_dt_release(array_of_datatypes[i]);
			return err;
		}
	}
	if (c->ni)
		memcpy(array_of_integers, c->ints, (size_t)c->ni * sizeof(int));
	if (c->na)
		memcpy(array_of_addresses, c->aints, (size_t)c->na * sizeof(MPI_Aint));
	if (c->nc)
		memcpy(array_of_large_counts, c->counts,
		       (size_t)c->nc * sizeof(MPI_Count));
	return MPI_SUCCESS;
}
