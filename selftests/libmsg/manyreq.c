// SPDX-License-Identifier: MIT
/*
 * Ten thousand outstanding requests: each rank posts 10000 receives,
 * then its partner's 10000 sends arrive (many queued for ring space);
 * completed with Waitall, Waitany, Waitsome, Testany and Testsome.
 */
#include "test.h"

#define N 10000

int main(int argc, char **argv)
{
	MPI_Request *rr, *sr;
	MPI_Status *st;
	int *rv, *sv, *idx;
	int peer, i, k, done, out, flag, phase;

	t_init(&argc, &argv);
	peer = t_partner();
	rr = malloc(sizeof(*rr) * N);
	sr = malloc(sizeof(*sr) * N);
	st = malloc(sizeof(*st) * N);
	rv = malloc(sizeof(*rv) * N);
	sv = malloc(sizeof(*sv) * N);
	idx = malloc(sizeof(*idx) * N);
	for (phase = 0; phase < 4; phase++) {
		for (i = 0; i < N; i++) {
			rv[i] = -1;
			MPI_OK(MPI_Irecv(&rv[i], 1, MPI_INT, peer, i % 1000,
					 MPI_COMM_WORLD, &rr[i]));
		}
		t_barrier();
		for (i = 0; i < N; i++) {
			sv[i] = i * 3 + phase;
			MPI_OK(MPI_Isend(&sv[i], 1, MPI_INT, peer, i % 1000,
					 MPI_COMM_WORLD, &sr[i]));
		}
		switch (phase) {
		case 0:
			MPI_OK(MPI_Waitall(N, rr, st));
			for (i = 0; i < N; i++)
				CHECK(rr[i] == MPI_REQUEST_NULL &&
				      st[i].MPI_TAG == i % 1000, "waitall %d", i);
			break;
		case 1:
			for (k = 0; k < N; k++) {
				MPI_OK(MPI_Waitany(N, rr, &i, &st[0]));
				CHECK(i >= 0 && i < N && rr[i] == MPI_REQUEST_NULL,
				      "waitany index %d", i);
			}
			MPI_OK(MPI_Waitany(N, rr, &i, &st[0]));
			CHECK(i == MPI_UNDEFINED, "waitany on nothing gave %d", i);
			break;
		case 2:
			for (done = 0; done < N; done += out) {
				MPI_OK(MPI_Waitsome(N, rr, &out, idx, st));
				CHECK(out > 0, "waitsome gave %d", out);
			}
			MPI_OK(MPI_Waitsome(N, rr, &out, idx, st));
			CHECK(out == MPI_UNDEFINED, "waitsome on nothing gave %d", out);
			break;
		case 3:
			for (done = 0; done < N;) {
				if (done % 2) {
					MPI_OK(MPI_Testany(N, rr, &i, &flag, &st[0]));
					done += flag && i != MPI_UNDEFINED;
				} else {
					MPI_OK(MPI_Testsome(N, rr, &out, idx, st));
					done += out;
				}
			}
			MPI_OK(MPI_Testall(N, rr, &flag, MPI_STATUSES_IGNORE));
			CHECK(flag, "testall on nothing");
			break;
		}
		for (i = 0; i < N; i++)
			CHECK(rv[i] == i * 3 + phase, "phase %d: value %d is %d",
			      phase, i, rv[i]);
		MPI_OK(MPI_Waitall(N, sr, MPI_STATUSES_IGNORE));
		t_barrier();
	}
	free(rr);
	free(sr);
	free(st);
	free(rv);
	free(sv);
	free(idx);
	return t_done();
}
