// SPDX-License-Identifier: MIT
/*
 * mpi_f08's choice buffers: TYPE(*), DIMENSION(..) dummies of BIND(C)
 * interfaces arrive as ISO_Fortran_binding descriptors, any array
 * section included (MPI_SUBARRAYS_SUPPORTED is .TRUE. in mpi_f08).  A
 * contiguous one (or a scalar, MPI_BOTTOM, MPI_IN_PLACE) is its
 * address.  A section that is not contiguous:
 *   - in a blocking call, is copied into a contiguous buffer, and back
 *     after the call if the call may write it;
 *   - in a call that keeps the buffer (nonblocking, persistent, one-
 *     sided), is described by a datatype laid over it: one element of
 *     a nest of hvectors of the call's own datatype, when its count of
 *     that (dense) datatype is exactly the section's elements.  The
 *     datatype is freed after the call; MPI keeps it as long as the
 *     operation needs it.  Anything else is MPI_ERR_BUFFER.
 * Descriptors are read field by field: no call into libgfortran.
 */

#include "fortran/fortran.h"

#ifdef LMF_CFI

static int contiguous(const CFI_cdesc_t *d)
{
	CFI_index_t want = (CFI_index_t)d->elem_len;
	int i;

	for (i = 0; i < d->rank; i++) {
		/* Empty, or assumed-size (its last extent is -1). */
		if (d->dim[i].extent <= 0)
			return 1;
		if (d->dim[i].extent > 1 && d->dim[i].sm != want)
			return 0;
		want *= d->dim[i].extent;
	}
	return 1;
}

static size_t elements(const CFI_cdesc_t *d)
{
	size_t n = 1;
	int i;

	for (i = 0; i < d->rank; i++)
		n *= (size_t)d->dim[i].extent;
	return n;
}

/* The section's elements to flat (in array element order), or back. */
static void walk(const CFI_cdesc_t *d, char *flat, int to_flat)
{
	CFI_index_t idx[CFI_MAX_RANK] = { 0 };
	size_t k, n = elements(d), len = d->elem_len;
	int i;

	for (k = 0; k < n; k++) {
		char *p = d->base_addr;

		for (i = 0; i < d->rank; i++)
			p += idx[i] * d->dim[i].sm;
		if (to_flat)
			memcpy(flat + k * len, p, len);
		else
			memcpy(p, flat + k * len, len);
		for (i = 0; i < d->rank; i++) {
			if (++idx[i] < d->dim[i].extent)
				break;
			idx[i] = 0;
		}
	}
}

/*
 * count elements of *dt over the section, as one element of a new type;
 * the count is *count, or *lcount in a large-count call.
 */
static int section_type(struct lmf_cbuf *b, CFI_cdesc_t *d, int *count,
			MPI_Count *lcount, MPI_Datatype *dt, const char *fn)
{
	MPI_Count n = count ? *count : *lcount;
	MPI_Aint lb, extent, tlb, textent;
	MPI_Datatype t, nt;
	int size, i, rc;

	if (PMPI_Type_size(*dt, &size) ||
	    PMPI_Type_get_extent(*dt, &lb, &extent) ||
	    PMPI_Type_get_true_extent(*dt, &tlb, &textent))
		return lm_error(NULL, fn, MPI_ERR_TYPE, "invalid datatype");
	if (size <= 0 || lb || tlb || extent != size || textent != size ||
	    d->elem_len % (size_t)size ||
	    n < 0 || (uint64_t)n * (uint64_t)size !=
	    (uint64_t)elements(d) * d->elem_len)
		return lm_error(NULL, fn, MPI_ERR_BUFFER,
				"a non-contiguous array section in a nonblocking call must hold exactly count elements of a contiguous datatype");
	rc = PMPI_Type_contiguous((int)(d->elem_len / (size_t)size), *dt, &t);
	for (i = 0; !rc && i < d->rank; i++) {
		rc = PMPI_Type_create_hvector((int)d->dim[i].extent, 1,
					      (MPI_Aint)d->dim[i].sm, t, &nt);
		PMPI_Type_free(&t);
		t = nt;
	}
	if (!rc)
		rc = PMPI_Type_commit(&t);
	if (rc)
		return rc;
	b->tmp = t;
	if (count)
		*count = 1;
	else
		*lcount = 1;
	*dt = t;
	return MPI_SUCCESS;
}

int lmf_cbuf_get(struct lmf_cbuf *b, CFI_cdesc_t *d, int flags, int *count,
		 MPI_Count *lcount, MPI_Datatype *dt, const char *fn)
{
	void *base = d->base_addr;
	size_t bytes;

	b->d = d;
	b->addr = lmf_buf(base);
	if (b->addr != base || (flags & LMF_ADDR) || contiguous(d))
		return MPI_SUCCESS;
	if (!(flags & LMF_NONBLOCKING)) {
		bytes = elements(d) * d->elem_len;
		b->copy = malloc(bytes ? bytes : 1);
		if (!b->copy)
			return lmf_nomem(fn);
		walk(d, b->copy, 1);
		b->out = !!(flags & LMF_OUT);
		b->addr = b->copy;
		return MPI_SUCCESS;
	}
	if ((!count && !lcount) || !dt)
		return lm_error(NULL, fn, MPI_ERR_BUFFER,
				"a non-contiguous array section is not supported in this nonblocking call");
	return section_type(b, d, count, lcount, dt, fn);
}

void lmf_cbuf_out(struct lmf_cbuf *b)
{
	if (b->copy && b->out)
		walk(b->d, b->copy, 0);
}

void lmf_cbuf_free(struct lmf_cbuf *b)
{
	free(b->copy);
	if (b->tmp)
		PMPI_Type_free(&b->tmp);
}

#endif /* LMF_CFI */
