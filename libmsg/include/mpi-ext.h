/* SPDX-License-Identifier: MIT */
/*
 * mpi-ext.h: libmsg's extensions of MPI, as Open MPI 5 ships its own:
 * User-Level Failure Mitigation (ULFM), the MPIX_ calls that let a
 * program survive a dead rank (revoke, shrink, agree, acknowledge).
 *
 * A program tests for them as it would with Open MPI:
 *
 *     #include <mpi.h>
 *     #include <mpi-ext.h>
 *     #ifdef OMPI_HAVE_MPI_EXT_FTMPI
 *
 * or with libmsg's own name, LIBMSG_HAVE_MPI_EXT_FTMPI.  Run it with
 * `mpiexec --with-ft` so that the launcher lets the survivors go on
 * after a rank dies (see libmsg/README.md, "Fault tolerance").
 */
#ifndef LIBMSG_MPI_EXT_H
#define LIBMSG_MPI_EXT_H

#include <mpi.h>

#ifdef __cplusplus
extern "C" {
#endif

#define LIBMSG_HAVE_MPI_EXT_FTMPI	1
#define OMPI_HAVE_MPI_EXT_FTMPI		1

#ifndef MPIX_ERR_PROC_FAILED
#define MPIX_ERR_PROC_FAILED		MPI_ERR_PROC_FAILED
#endif
#define MPIX_ERR_PROC_FAILED_PENDING	MPI_ERR_PROC_FAILED_PENDING
#define MPIX_ERR_REVOKED		MPI_ERR_REVOKED

int MPIX_Comm_revoke(MPI_Comm comm);
int MPIX_Comm_is_revoked(MPI_Comm comm, int *flag);
int MPIX_Comm_shrink(MPI_Comm comm, MPI_Comm *newcomm);
int MPIX_Comm_ishrink(MPI_Comm comm, MPI_Comm *newcomm, MPI_Request *request);
int MPIX_Comm_agree(MPI_Comm comm, int *flag);
int MPIX_Comm_iagree(MPI_Comm comm, int *flag, MPI_Request *request);
int MPIX_Comm_failure_ack(MPI_Comm comm);
int MPIX_Comm_failure_get_acked(MPI_Comm comm, MPI_Group *failedgrp);
int MPIX_Comm_get_failed(MPI_Comm comm, MPI_Group *failedgrp);
int MPIX_Comm_ack_failed(MPI_Comm comm, int num_to_ack, int *num_acked);

/* The profiling interface's names of the same calls. */
int PMPIX_Comm_revoke(MPI_Comm comm);
int PMPIX_Comm_is_revoked(MPI_Comm comm, int *flag);
int PMPIX_Comm_shrink(MPI_Comm comm, MPI_Comm *newcomm);
int PMPIX_Comm_ishrink(MPI_Comm comm, MPI_Comm *newcomm, MPI_Request *request);
int PMPIX_Comm_agree(MPI_Comm comm, int *flag);
int PMPIX_Comm_iagree(MPI_Comm comm, int *flag, MPI_Request *request);
int PMPIX_Comm_failure_ack(MPI_Comm comm);
int PMPIX_Comm_failure_get_acked(MPI_Comm comm, MPI_Group *failedgrp);
int PMPIX_Comm_get_failed(MPI_Comm comm, MPI_Group *failedgrp);
int PMPIX_Comm_ack_failed(MPI_Comm comm, int num_to_ack, int *num_acked);

#ifdef __cplusplus
}
#endif

#endif /* LIBMSG_MPI_EXT_H */
