// SPDX-License-Identifier: MIT
/*
 * The common blocks of mpif.h and the modules whose addresses mean
 * something to a call: MPI_BOTTOM, MPI_IN_PLACE, MPI_STATUS_IGNORE,
 * MPI_STATUSES_IGNORE, MPI_ERRCODES_IGNORE, MPI_UNWEIGHTED,
 * MPI_WEIGHTS_EMPTY, MPI_ARGV_NULL, MPI_ARGVS_NULL (COMMON
 * /libmsg_bottom/ is the symbol libmsg_bottom_), as large as Fortran
 * declares them.
 *
 * A Fortran program's objects declare the blocks too, and its own copy
 * is the one the dynamic linker binds every reference to.  So they are
 * defined here, in a file of their own, and the library reaches them
 * only from other files: through the GOT, that is to the program's
 * copy, which is the address the program passes.
 */

#include "fortran/fortran.h"

MPI_Fint libmsg_bottom_[1], libmsg_in_place_[1], libmsg_errcodes_ignore_[1],
	libmsg_unweighted_[1], libmsg_weights_empty_[1];
MPI_Fint libmsg_status_ignore_[6], libmsg_statuses_ignore_[6];
char libmsg_argv_null_[1], libmsg_argvs_null_[1];
