// SPDX-License-Identifier: MIT
/*
 * A C++ program over libmsg, built with mpicxx: mpi.h compiles as C++
 * (its declarations extern "C") with the C++ compiler's warnings, and
 * MPI's C bindings work from C++: std::vector buffers, a derived type
 * for a struct, a user reduction from a lambda, a communicator split
 * and a nonblocking exchange around a ring.  The C++ datatypes
 * (MPI_CXX_BOOL, MPI_CXX_FLOAT_COMPLEX, _DOUBLE_COMPLEX,
 * _LONG_DOUBLE_COMPLEX): the size of bool and std::complex<T>, their
 * names, messages of them, SUM and PROD on the complex ones, LAND, LOR
 * and LXOR on bool, and MPI_MAX refused on a complex one.
 */
#include <mpi.h>

#include <complex>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
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

/* One C++ type: its size and name. */
static void cxx_type(MPI_Datatype t, std::size_t size, const char *name)
{
	char got[MPI_MAX_OBJECT_NAME];
	int n = -1, len = 0;

	MPI_Type_size(t, &n);
	CHECK(n == (int)size, name);
	MPI_Type_get_name(t, got, &len);
	CHECK(std::strcmp(got, name) == 0 && len == (int)std::strlen(name), name);
}

/* Sums and products of std::complex<T>, over the ranks. */
template <typename T>
static void complex_sums(MPI_Datatype t, int rank, int size)
{
	std::vector<std::complex<T>> mine(3), sum(3), prod(3);
	for (int i = 0; i < 3; i++)
		mine[i] = std::complex<T>((T)(rank + i), (T)1);
	MPI_Allreduce(mine.data(), sum.data(), 3, t, MPI_SUM, MPI_COMM_WORLD);
	MPI_Allreduce(mine.data(), prod.data(), 3, t, MPI_PROD, MPI_COMM_WORLD);
	for (int i = 0; i < 3; i++) {
		std::complex<T> s(0, 0), p(1, 0);
		for (int r = 0; r < size; r++) {
			s += std::complex<T>((T)(r + i), (T)1);
			p *= std::complex<T>((T)(r + i), (T)1);
		}
		CHECK(sum[i] == s, "complex MPI_SUM");
		CHECK(std::abs(prod[i] - p) <= std::abs(p) * (T)1e-5, "complex MPI_PROD");
	}
	/* A message of them, to the next rank. */
	std::vector<std::complex<T>> in(3);
	MPI_Sendrecv(mine.data(), 3, t, (rank + 1) % size, 7, in.data(), 3, t,
		     (rank + size - 1) % size, 7, MPI_COMM_WORLD,
		     MPI_STATUS_IGNORE);
	CHECK(in[2] == std::complex<T>((T)((rank + size - 1) % size + 2), (T)1),
	      "complex message");
}

static void cxx_types(int rank, int size)
{
	cxx_type(MPI_CXX_BOOL, sizeof(bool), "MPI_CXX_BOOL");
	cxx_type(MPI_CXX_FLOAT_COMPLEX, sizeof(std::complex<float>),
		 "MPI_CXX_FLOAT_COMPLEX");
	cxx_type(MPI_CXX_DOUBLE_COMPLEX, sizeof(std::complex<double>),
		 "MPI_CXX_DOUBLE_COMPLEX");
	cxx_type(MPI_CXX_LONG_DOUBLE_COMPLEX, sizeof(std::complex<long double>),
		 "MPI_CXX_LONG_DOUBLE_COMPLEX");
	complex_sums<float>(MPI_CXX_FLOAT_COMPLEX, rank, size);
	complex_sums<double>(MPI_CXX_DOUBLE_COMPLEX, rank, size);
	complex_sums<long double>(MPI_CXX_LONG_DOUBLE_COMPLEX, rank, size);

	/* bool: true on rank 0 only, on every rank, on the odd ones. */
	bool mine[3] = { rank == 0, true, rank % 2 == 1 }, land[3], lor[3], lxor[3];
	MPI_Allreduce(mine, land, 3, MPI_CXX_BOOL, MPI_LAND, MPI_COMM_WORLD);
	MPI_Allreduce(mine, lor, 3, MPI_CXX_BOOL, MPI_LOR, MPI_COMM_WORLD);
	MPI_Allreduce(mine, lxor, 3, MPI_CXX_BOOL, MPI_LXOR, MPI_COMM_WORLD);
	CHECK(land[0] == (size == 1) && land[1] && land[2] == false,
	      "MPI_LAND on MPI_CXX_BOOL");
	CHECK(lor[0] && lor[1] && lor[2] == (size > 1), "MPI_LOR on MPI_CXX_BOOL");
	CHECK(lxor[0] && lxor[1] == (size % 2 == 1) &&
	      lxor[2] == ((size / 2) % 2 == 1), "MPI_LXOR on MPI_CXX_BOOL");

	/* MAX is not defined on complex numbers. */
	std::complex<double> z(1, 2), zr;
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	int err = MPI_Allreduce(&z, &zr, 1, MPI_CXX_DOUBLE_COMPLEX, MPI_MAX,
				MPI_COMM_WORLD), cls = -1;
	MPI_Error_class(err, &cls);
	CHECK(cls == MPI_ERR_OP, "MPI_MAX on MPI_CXX_DOUBLE_COMPLEX");
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

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

	cxx_types(rank, size);

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
