// SPDX-License-Identifier: MIT
/*
 * The C side of the Fortran handles (src/fortran/handles.c): MPI_X_c2f
 * and MPI_X_f2c of every kind, the null handle 0, predefined handles at
 * fixed small indices, a handle's index stable across conversions, an
 * invalid index refused by the call that gets it, indices given back
 * and reused when the Fortran side frees (through the Fortran entries,
 * called from C as a Fortran program would), and the six status
 * conversions (MPI_F_STATUS_IGNORE refused).
 */
#include "test.h"

/* The entries a Fortran program calls (gen/fortran). */
void mpi_comm_dup_(MPI_Fint *comm, MPI_Fint *newcomm, MPI_Fint *ierror);
void mpi_comm_free_(MPI_Fint *comm, MPI_Fint *ierror);
void mpi_comm_size_(MPI_Fint *comm, MPI_Fint *size, MPI_Fint *ierror);

static void handler(MPI_Comm *comm, int *code, ...)
{
	(void)comm;
	(void)code;
}

int main(int argc, char **argv)
{
	MPI_Fint f, f2, fs[6], ierr, size, used[64];
	MPI_Comm c, dup;
	MPI_Group g;
	MPI_Datatype t;
	MPI_Request r;
	MPI_Info info;
	MPI_Errhandler eh;
	MPI_Status s, s2;
	MPI_F08_status s08;
	int i, err, n;

	t_init(&argc, &argv);
	CHECK(MPI_Comm_c2f(MPI_COMM_NULL) == 0 && MPI_Comm_f2c(0) == MPI_COMM_NULL,
	      "0 is the null communicator");
	CHECK(MPI_Comm_c2f(MPI_COMM_WORLD) == 1 && MPI_Comm_c2f(MPI_COMM_SELF) == 2,
	      "WORLD and SELF are 1 and 2");
	CHECK(MPI_Comm_f2c(1) == MPI_COMM_WORLD, "f2c of WORLD");
	CHECK(MPI_Type_f2c(MPI_Type_c2f(MPI_INTEGER)) == MPI_INTEGER &&
	      MPI_Type_c2f(MPI_LONG_LONG) == MPI_Type_c2f(MPI_LONG_LONG_INT),
	      "one index for one predefined type");
	CHECK(MPI_Op_f2c(MPI_Op_c2f(MPI_SUM)) == MPI_SUM &&
	      MPI_Errhandler_f2c(MPI_Errhandler_c2f(MPI_ERRORS_RETURN)) == MPI_ERRORS_RETURN &&
	      MPI_Info_f2c(MPI_Info_c2f(MPI_INFO_ENV)) == MPI_INFO_ENV &&
	      MPI_Group_f2c(MPI_Group_c2f(MPI_GROUP_EMPTY)) == MPI_GROUP_EMPTY &&
	      MPI_Message_f2c(MPI_Message_c2f(MPI_MESSAGE_NO_PROC)) == MPI_MESSAGE_NO_PROC &&
	      MPI_Request_c2f(MPI_REQUEST_NULL) == 0 && MPI_Win_c2f(MPI_WIN_NULL) == 0 &&
	      MPI_Session_c2f(MPI_SESSION_NULL) == 0, "predefined handles of every kind");

	/* A created handle keeps its index. */
	MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
	f = MPI_Comm_c2f(dup);
	CHECK(f > 2 && MPI_Comm_c2f(dup) == f && MPI_Comm_f2c(f) == dup,
	      "a communicator's index");
	MPI_OK(MPI_Comm_group(dup, &g));
	CHECK(MPI_Group_f2c(MPI_Group_c2f(g)) == g, "a group");
	MPI_OK(MPI_Group_free(&g));
	MPI_OK(MPI_Type_contiguous(3, MPI_INT, &t));
	CHECK(MPI_Type_f2c(MPI_Type_c2f(t)) == t, "a datatype");
	MPI_OK(MPI_Type_free(&t));
	MPI_OK(MPI_Info_create(&info));
	CHECK(MPI_Info_f2c(MPI_Info_c2f(info)) == info, "an info");
	MPI_OK(MPI_Info_free(&info));
	MPI_OK(MPI_Comm_create_errhandler(handler, &eh));
	CHECK(MPI_Errhandler_f2c(MPI_Errhandler_c2f(eh)) == eh, "an error handler");
	MPI_OK(MPI_Errhandler_free(&eh));
	MPI_OK(MPI_Irecv(&n, 1, MPI_INT, MPI_ANY_SOURCE, 5, MPI_COMM_SELF, &r));
	CHECK(MPI_Request_f2c(MPI_Request_c2f(r)) == r, "a request");
	MPI_OK(MPI_Cancel(&r));
	MPI_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));

	/* An index no handle has: the call refuses it. */
	c = MPI_Comm_f2c(123456);
	err = MPI_Comm_size(c, &n);
	T_EXPECT(err, MPI_ERR_COMM, "MPI_Comm_size of an invalid Fortran handle");
	CHECK(MPI_Comm_f2c(-4) != MPI_COMM_NULL, "a negative index is no null handle");

	/* Through the Fortran entries: free gives the index back. */
	for (i = 0; i < 64; i++) {
		f2 = 1;
		mpi_comm_dup_(&f2, &used[i], &ierr);
		CHECK(ierr == MPI_SUCCESS && used[i] > 2, "mpi_comm_dup_");
		mpi_comm_size_(&used[i], &size, &ierr);
		CHECK(ierr == MPI_SUCCESS && size == t_size, "mpi_comm_size_");
	}
	for (i = 0; i < 64; i++) {
		f2 = used[i];
		mpi_comm_free_(&used[i], &ierr);
		CHECK(ierr == MPI_SUCCESS && used[i] == 0, "mpi_comm_free_ sets 0");
		CHECK(MPI_Comm_f2c(f2) != MPI_COMM_NULL, "a freed index is invalid");
		err = MPI_Comm_size(MPI_Comm_f2c(f2), &n);
		T_EXPECT(err, MPI_ERR_COMM, "a freed Fortran communicator");
	}
	f2 = 1;
	mpi_comm_dup_(&f2, &used[0], &ierr);
	CHECK(used[0] <= 3 + 64, "indices are reused (%d)", used[0]);
	mpi_comm_free_(&used[0], &ierr);
	MPI_OK(MPI_Comm_free(&dup));

	/* Statuses: one layout in three forms. */
	memset(&s, 0, sizeof(s));
	s.MPI_SOURCE = 3;
	s.MPI_TAG = 17;
	s.MPI_ERROR = MPI_ERR_TRUNCATE;
	MPI_OK(MPI_Status_set_elements(&s, MPI_INT, 9));
	MPI_OK(MPI_Status_c2f(&s, fs));
	CHECK(fs[0] == 3 && fs[1] == 17 && fs[2] == MPI_ERR_TRUNCATE,
	      "MPI_SOURCE, MPI_TAG, MPI_ERROR are 1, 2, 3 in Fortran");
	MPI_OK(MPI_Status_f2f08(fs, &s08));
	CHECK(s08.MPI_TAG == 17, "f2f08");
	memset(fs, 0, sizeof(fs));
	MPI_OK(MPI_Status_f082f(&s08, fs));
	MPI_OK(MPI_Status_f2c(fs, &s2));
	MPI_OK(MPI_Get_count(&s2, MPI_INT, &n));
	CHECK(n == 9 && s2.MPI_SOURCE == 3, "f082f and f2c keep the count");
	MPI_OK(MPI_Status_c2f08(&s2, &s08));
	MPI_OK(MPI_Status_f082c(&s08, &s));
	CHECK(s.MPI_TAG == 17, "c2f08 and f082c");
	T_EXPECT(MPI_Status_f2c(MPI_F_STATUS_IGNORE, &s), MPI_ERR_ARG,
		 "MPI_Status_f2c of MPI_F_STATUS_IGNORE");
	T_EXPECT(MPI_Status_f082c(MPI_F08_STATUS_IGNORE, &s), MPI_ERR_ARG,
		 "MPI_Status_f082c of MPI_F08_STATUS_IGNORE");
	return t_done();
}
