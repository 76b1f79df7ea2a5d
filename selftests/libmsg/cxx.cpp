// SPDX-License-Identifier: MIT
/*
 * A C++ program over libmsg, built with mpicxx: mpi.h compiles as C++
 * (its declarations extern "C") with the C++ compiler's warnings, and
 * MPI's C bindings work from C++: std::vector buffers, a derived type
 * for a struct, a user reduction from a lambda, a communicator split
 * and a nonblocking exchange around a ring.
 */
#include <mpi.h>

#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <numeric>
#include <vector>

#define CHECK(cond, what) do {						\
	if (!(cond)) {							\
		std::fprintf(stderr, "FAIL %s:%d: %s\n", __FILE__,	\
			     __LINE__, what);				\
		MPI_Abort(MPI_COMM_WORLD, 1);				\
	}								\
} while (0)

struct particle {
	double pos[3];
	int id;
};

int main(int argc, char **argv)
{
	int rank, size;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);

	/* A ring of nonblocking messages in std::vector buffers. */
	std::vector<int> out(1000), in(1000, -1);
	std::iota(out.begin(), out.end(), rank * 1000);
	MPI_Request rq[2];
	MPI_Irecv(in.data(), (int)in.size(), MPI_INT, (rank + size - 1) % size,
		  0, MPI_COMM_WORLD, &rq[0]);
	MPI_Isend(out.data(), (int)out.size(), MPI_INT, (rank + 1) % size, 0,
		  MPI_COMM_WORLD, &rq[1]);
	MPI_Waitall(2, rq, MPI_STATUSES_IGNORE);
	CHECK(in[0] == ((rank + size - 1) % size) * 1000 && in[999] == in[0] + 999,
	      "ring data");

	/* A struct type, broadcast from the last rank. */
	MPI_Datatype pt;
	int lens[2] = { 3, 1 };
	MPI_Aint disp[2] = { offsetof(particle, pos), offsetof(particle, id) };
	MPI_Datatype types[2] = { MPI_DOUBLE, MPI_INT };
	MPI_Type_create_struct(2, lens, disp, types, &pt);
	MPI_Type_commit(&pt);
	std::vector<particle> ps(4);
	for (int i = 0; i < 4; i++)
		ps[i] = rank == size - 1 ? particle{ { 1.0 * i, 2.0, 3.0 }, i } :
					   particle{ { 0, 0, 0 }, -1 };
	MPI_Bcast(ps.data(), 4, pt, size - 1, MPI_COMM_WORLD);
	CHECK(ps[3].id == 3 && ps[3].pos[0] == 3.0, "struct bcast");
	MPI_Type_free(&pt);

	/* A user op from a captureless lambda: the largest absolute value. */
	MPI_Op absmax;
	MPI_Op_create([](void *a, void *b, int *n, MPI_Datatype *) {
		const int *x = static_cast<const int *>(a);
		int *y = static_cast<int *>(b);
		for (int i = 0; i < *n; i++)
			y[i] = std::abs(x[i]) > std::abs(y[i]) ? x[i] : y[i];
	}, 1, &absmax);
	int mine = rank % 2 ? -rank : rank, got = 0;
	MPI_Allreduce(&mine, &got, 1, MPI_INT, absmax, MPI_COMM_WORLD);
	int want = (size - 1) % 2 ? -(size - 1) : size - 1;
	CHECK(got == want, "user op");
	MPI_Op_free(&absmax);

	/* Split into even and odd ranks. */
	MPI_Comm half;
	int hsize;
	MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
	MPI_Comm_size(half, &hsize);
	CHECK(hsize == (size + 1 - rank % 2) / 2, "split size");
	MPI_Comm_free(&half);

	MPI_Finalize();
	if (rank == 0)
		std::printf("cxx: ok (%d ranks)\n", size);
	return 0;
}
