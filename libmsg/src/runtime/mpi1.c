// SPDX-License-Identifier: MIT
/*
 * The MPI-1 names MPI-3.0 removed: programs written against MPI-1 still
 * name them (MPI_Type_struct with MPI_Address, MPI_Type_extent,
 * MPI_Errhandler_set), and MPICH still has them.  Each is its MPI-2
 * replacement, which checks the arguments and reports under its own
 * name.  Not here: the MPI_LB and MPI_UB markers of MPI-1 struct types
 * (a program sets a type's bounds with MPI_Type_create_resized).
 */

#include "runtime/runtime.h"

int MPI_Address(void *location, MPI_Aint *address)
{
	return MPI_Get_address(location, address);
}

int MPI_Type_extent(MPI_Datatype datatype, MPI_Aint *extent)
{
	MPI_Aint lb;

	return MPI_Type_get_extent(datatype, &lb, extent);
}

int MPI_Type_lb(MPI_Datatype datatype, MPI_Aint *displacement)
{
	MPI_Aint extent;

	return MPI_Type_get_extent(datatype, displacement, &extent);
}

/* The upper bound: lb + extent. */
int MPI_Type_ub(MPI_Datatype datatype, MPI_Aint *displacement)
{
	MPI_Aint lb, extent;
	int err = MPI_Type_get_extent(datatype, &lb, &extent);

	if (!err && displacement)
		*displacement = lb + extent;
	return err;
}

int MPI_Type_hvector(int count, int blocklength, MPI_Aint stride,
		     MPI_Datatype oldtype, MPI_Datatype *newtype)
{
	return MPI_Type_create_hvector(count, blocklength, stride, oldtype,
				       newtype);
}

int MPI_Type_hindexed(int count, int array_of_blocklengths[],
		      MPI_Aint array_of_displacements[], MPI_Datatype oldtype,
		      MPI_Datatype *newtype)
{
	return MPI_Type_create_hindexed(count, array_of_blocklengths,
					array_of_displacements, oldtype,
					newtype);
}

int MPI_Type_struct(int count, int array_of_blocklengths[],
		    MPI_Aint array_of_displacements[],
		    MPI_Datatype array_of_types[], MPI_Datatype *newtype)
{
	return MPI_Type_create_struct(count, array_of_blocklengths,
				      array_of_displacements, array_of_types,
				      newtype);
}

int MPI_Errhandler_create(MPI_Handler_function *function,
			  MPI_Errhandler *errhandler)
{
	return MPI_Comm_create_errhandler(function, errhandler);
}

int MPI_Errhandler_set(MPI_Comm comm, MPI_Errhandler errhandler)
{
	return MPI_Comm_set_errhandler(comm, errhandler);
}

int MPI_Errhandler_get(MPI_Comm comm, MPI_Errhandler *errhandler)
{
	return MPI_Comm_get_errhandler(comm, errhandler);
}
