/* SPDX-License-Identifier: MIT */
/*
 * mpi.h: the MPI interface of libmsg (mpichan's MPI library).
 *
 * Handles are pointers to opaque library objects; the predefined ones
 * (MPI_COMM_WORLD, MPI_INT, ...) are addresses of objects exported by
 * the library, so they are link-time constants and stable across
 * library versions.  Only calls the library implements are declared.
 */
#ifndef LIBMSG_MPI_H
#define LIBMSG_MPI_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define MPI_VERSION		3
#define MPI_SUBVERSION		1
#define LIBMSG_MPI		1

/* ---- Handles ------------------------------------------------------- */

struct libmsg_comm;
struct libmsg_datatype;
struct libmsg_request;
struct libmsg_errhandler;
struct libmsg_message;
struct libmsg_op;
struct libmsg_group;
struct libmsg_info;
struct libmsg_session;

typedef struct libmsg_comm *MPI_Comm;
typedef struct libmsg_datatype *MPI_Datatype;
typedef struct libmsg_request *MPI_Request;
typedef struct libmsg_errhandler *MPI_Errhandler;
typedef struct libmsg_message *MPI_Message;
typedef struct libmsg_op *MPI_Op;
typedef struct libmsg_group *MPI_Group;
typedef struct libmsg_info *MPI_Info;
typedef struct libmsg_session *MPI_Session;

typedef intptr_t MPI_Aint;
typedef long long MPI_Offset;
typedef long long MPI_Count;

typedef struct MPI_Status {
	int MPI_SOURCE;
	int MPI_TAG;
	int MPI_ERROR;
	int libmsg_cancelled;
	long long libmsg_count;		/* bytes received */
} MPI_Status;

extern struct libmsg_comm libmsg_comm_world, libmsg_comm_self;
#define MPI_COMM_WORLD		(&libmsg_comm_world)
#define MPI_COMM_SELF		(&libmsg_comm_self)
#define MPI_COMM_NULL		((MPI_Comm)0)

extern struct libmsg_group libmsg_group_empty;
#define MPI_GROUP_EMPTY		(&libmsg_group_empty)
#define MPI_GROUP_NULL		((MPI_Group)0)
#define MPI_INFO_NULL		((MPI_Info)0)
#define MPI_SESSION_NULL	((MPI_Session)0)

/* Results of MPI_Group_compare and MPI_Comm_compare. */
#define MPI_IDENT		0
#define MPI_CONGRUENT		1
#define MPI_SIMILAR		2
#define MPI_UNEQUAL		3

/*
 * Split types of MPI_Comm_split_type.  HW_GUIDED (MPI-4.0) takes the
 * info key "mpi_hw_resource_type"; libmsg knows "mpi_shared_memory"
 * (the whole machine: every rank), and no hardware level below the
 * machine, so HW_UNGUIDED, which must give strict subsets, gives
 * MPI_COMM_NULL.
 */
#define MPI_COMM_TYPE_SHARED	1
#define MPI_COMM_TYPE_HW_GUIDED	2
#define MPI_COMM_TYPE_HW_UNGUIDED 3

extern struct libmsg_errhandler libmsg_errors_are_fatal, libmsg_errors_return,
	libmsg_errors_abort;
#define MPI_ERRORS_ARE_FATAL	(&libmsg_errors_are_fatal)
#define MPI_ERRORS_RETURN	(&libmsg_errors_return)
#define MPI_ERRORS_ABORT	(&libmsg_errors_abort)
#define MPI_ERRHANDLER_NULL	((MPI_Errhandler)0)

#define MPI_REQUEST_NULL	((MPI_Request)0)
#define MPI_MESSAGE_NULL	((MPI_Message)0)
extern struct libmsg_message libmsg_message_no_proc;
#define MPI_MESSAGE_NO_PROC	(&libmsg_message_no_proc)

/* Basic datatypes. */
#define LIBMSG_DT(name) extern struct libmsg_datatype libmsg_dt_##name
LIBMSG_DT(char); LIBMSG_DT(signed_char); LIBMSG_DT(unsigned_char);
LIBMSG_DT(byte); LIBMSG_DT(wchar); LIBMSG_DT(short);
LIBMSG_DT(unsigned_short); LIBMSG_DT(int); LIBMSG_DT(unsigned);
LIBMSG_DT(long); LIBMSG_DT(unsigned_long); LIBMSG_DT(long_long);
LIBMSG_DT(unsigned_long_long); LIBMSG_DT(float); LIBMSG_DT(double);
LIBMSG_DT(long_double); LIBMSG_DT(c_bool); LIBMSG_DT(int8_t);
LIBMSG_DT(int16_t); LIBMSG_DT(int32_t); LIBMSG_DT(int64_t);
LIBMSG_DT(uint8_t); LIBMSG_DT(uint16_t); LIBMSG_DT(uint32_t);
LIBMSG_DT(uint64_t); LIBMSG_DT(aint); LIBMSG_DT(offset); LIBMSG_DT(count);
LIBMSG_DT(c_float_complex); LIBMSG_DT(c_double_complex);
LIBMSG_DT(c_long_double_complex); LIBMSG_DT(packed);
LIBMSG_DT(float_int); LIBMSG_DT(double_int); LIBMSG_DT(long_int);
LIBMSG_DT(2int); LIBMSG_DT(short_int); LIBMSG_DT(long_double_int);
LIBMSG_DT(cxx_bool); LIBMSG_DT(cxx_float_complex);
LIBMSG_DT(cxx_double_complex); LIBMSG_DT(cxx_long_double_complex);
LIBMSG_DT(character); LIBMSG_DT(logical); LIBMSG_DT(integer);
LIBMSG_DT(real); LIBMSG_DT(double_precision); LIBMSG_DT(f_complex);
LIBMSG_DT(double_complex); LIBMSG_DT(2real); LIBMSG_DT(2double_precision);
LIBMSG_DT(2integer); LIBMSG_DT(integer1); LIBMSG_DT(integer2);
LIBMSG_DT(integer4); LIBMSG_DT(integer8); LIBMSG_DT(integer16);
LIBMSG_DT(real2); LIBMSG_DT(real4); LIBMSG_DT(real8); LIBMSG_DT(real16);
LIBMSG_DT(complex8); LIBMSG_DT(complex16); LIBMSG_DT(complex32);
#undef LIBMSG_DT

#define MPI_DATATYPE_NULL	((MPI_Datatype)0)
#define MPI_CHAR		(&libmsg_dt_char)
#define MPI_SIGNED_CHAR		(&libmsg_dt_signed_char)
#define MPI_UNSIGNED_CHAR	(&libmsg_dt_unsigned_char)
#define MPI_BYTE		(&libmsg_dt_byte)
#define MPI_WCHAR		(&libmsg_dt_wchar)
#define MPI_SHORT		(&libmsg_dt_short)
#define MPI_UNSIGNED_SHORT	(&libmsg_dt_unsigned_short)
#define MPI_INT			(&libmsg_dt_int)
#define MPI_UNSIGNED		(&libmsg_dt_unsigned)
#define MPI_LONG		(&libmsg_dt_long)
#define MPI_UNSIGNED_LONG	(&libmsg_dt_unsigned_long)
#define MPI_LONG_LONG_INT	(&libmsg_dt_long_long)
#define MPI_LONG_LONG		(&libmsg_dt_long_long)
#define MPI_UNSIGNED_LONG_LONG	(&libmsg_dt_unsigned_long_long)
#define MPI_FLOAT		(&libmsg_dt_float)
#define MPI_DOUBLE		(&libmsg_dt_double)
#define MPI_LONG_DOUBLE		(&libmsg_dt_long_double)
#define MPI_C_BOOL		(&libmsg_dt_c_bool)
#define MPI_INT8_T		(&libmsg_dt_int8_t)
#define MPI_INT16_T		(&libmsg_dt_int16_t)
#define MPI_INT32_T		(&libmsg_dt_int32_t)
#define MPI_INT64_T		(&libmsg_dt_int64_t)
#define MPI_UINT8_T		(&libmsg_dt_uint8_t)
#define MPI_UINT16_T		(&libmsg_dt_uint16_t)
#define MPI_UINT32_T		(&libmsg_dt_uint32_t)
#define MPI_UINT64_T		(&libmsg_dt_uint64_t)
#define MPI_AINT		(&libmsg_dt_aint)
#define MPI_OFFSET		(&libmsg_dt_offset)
#define MPI_COUNT		(&libmsg_dt_count)
#define MPI_C_COMPLEX		(&libmsg_dt_c_float_complex)
#define MPI_C_FLOAT_COMPLEX	(&libmsg_dt_c_float_complex)
#define MPI_C_DOUBLE_COMPLEX	(&libmsg_dt_c_double_complex)
#define MPI_C_LONG_DOUBLE_COMPLEX (&libmsg_dt_c_long_double_complex)
#define MPI_PACKED		(&libmsg_dt_packed)
#define MPI_FLOAT_INT		(&libmsg_dt_float_int)
#define MPI_DOUBLE_INT		(&libmsg_dt_double_int)
#define MPI_LONG_INT		(&libmsg_dt_long_int)
#define MPI_2INT		(&libmsg_dt_2int)
#define MPI_SHORT_INT		(&libmsg_dt_short_int)
#define MPI_LONG_DOUBLE_INT	(&libmsg_dt_long_double_int)
/* C++'s bool and std::complex<float>, <double>, <long double>. */
#define MPI_CXX_BOOL		(&libmsg_dt_cxx_bool)
#define MPI_CXX_FLOAT_COMPLEX	(&libmsg_dt_cxx_float_complex)
#define MPI_CXX_DOUBLE_COMPLEX	(&libmsg_dt_cxx_double_complex)
#define MPI_CXX_LONG_DOUBLE_COMPLEX (&libmsg_dt_cxx_long_double_complex)
/*
 * Fortran's, visible to C (MPI-3.1 3.2.2, A.1.1), with gfortran's sizes:
 * INTEGER, REAL, LOGICAL 4 bytes, DOUBLE PRECISION 8, COMPLEX 8, DOUBLE
 * COMPLEX 16, CHARACTER 1; the sized ones as named.
 */
#define MPI_CHARACTER		(&libmsg_dt_character)
#define MPI_LOGICAL		(&libmsg_dt_logical)
#define MPI_INTEGER		(&libmsg_dt_integer)
#define MPI_REAL		(&libmsg_dt_real)
#define MPI_DOUBLE_PRECISION	(&libmsg_dt_double_precision)
#define MPI_COMPLEX		(&libmsg_dt_f_complex)
#define MPI_DOUBLE_COMPLEX	(&libmsg_dt_double_complex)
#define MPI_2REAL		(&libmsg_dt_2real)
#define MPI_2DOUBLE_PRECISION	(&libmsg_dt_2double_precision)
#define MPI_2INTEGER		(&libmsg_dt_2integer)
#define MPI_INTEGER1		(&libmsg_dt_integer1)
#define MPI_INTEGER2		(&libmsg_dt_integer2)
#define MPI_INTEGER4		(&libmsg_dt_integer4)
#define MPI_INTEGER8		(&libmsg_dt_integer8)
#define MPI_INTEGER16		(&libmsg_dt_integer16)
#define MPI_REAL2		(&libmsg_dt_real2)
#define MPI_REAL4		(&libmsg_dt_real4)
#define MPI_REAL8		(&libmsg_dt_real8)
#define MPI_REAL16		(&libmsg_dt_real16)
#define MPI_COMPLEX8		(&libmsg_dt_complex8)
#define MPI_COMPLEX16		(&libmsg_dt_complex16)
#define MPI_COMPLEX32		(&libmsg_dt_complex32)

/* Reduction operations. */
#define LIBMSG_OP(name) extern struct libmsg_op libmsg_op_##name
LIBMSG_OP(max); LIBMSG_OP(min); LIBMSG_OP(sum); LIBMSG_OP(prod);
LIBMSG_OP(land); LIBMSG_OP(band); LIBMSG_OP(lor); LIBMSG_OP(bor);
LIBMSG_OP(lxor); LIBMSG_OP(bxor); LIBMSG_OP(minloc); LIBMSG_OP(maxloc);
LIBMSG_OP(replace); LIBMSG_OP(no_op);
#undef LIBMSG_OP

#define MPI_OP_NULL		((MPI_Op)0)
#define MPI_MAX			(&libmsg_op_max)
#define MPI_MIN			(&libmsg_op_min)
#define MPI_SUM			(&libmsg_op_sum)
#define MPI_PROD		(&libmsg_op_prod)
#define MPI_LAND		(&libmsg_op_land)
#define MPI_BAND		(&libmsg_op_band)
#define MPI_LOR			(&libmsg_op_lor)
#define MPI_BOR			(&libmsg_op_bor)
#define MPI_LXOR		(&libmsg_op_lxor)
#define MPI_BXOR		(&libmsg_op_bxor)
#define MPI_MINLOC		(&libmsg_op_minloc)
#define MPI_MAXLOC		(&libmsg_op_maxloc)
#define MPI_REPLACE		(&libmsg_op_replace)
#define MPI_NO_OP		(&libmsg_op_no_op)

typedef void (MPI_User_function)(void *invec, void *inoutvec, int *len,
				 MPI_Datatype *datatype);
typedef void (MPI_User_function_c)(void *invec, void *inoutvec,
				   MPI_Count *len, MPI_Datatype *datatype);

/* ---- Constants ---------------------------------------------------- */

/* Buffer addresses with a meaning of their own. */
#define MPI_IN_PLACE		((void *)-1)
#define MPI_BOTTOM		((void *)0)

#define MPI_ANY_SOURCE		(-1)
#define MPI_PROC_NULL		(-2)
#define MPI_ROOT		(-3)
#define MPI_ANY_TAG		(-1)
#define MPI_UNDEFINED		(-32766)
/* Tags above it carry partitioned messages (MPI-4.0), apart from these. */
#define MPI_TAG_UB_VALUE	0x3fffffff

#define MPI_STATUS_IGNORE	((MPI_Status *)0)
#define MPI_STATUSES_IGNORE	((MPI_Status *)0)

#define MPI_MAX_PROCESSOR_NAME	256
#define MPI_MAX_ERROR_STRING	256
#define MPI_MAX_LIBRARY_VERSION_STRING 256
#define MPI_MAX_OBJECT_NAME	128

#define MPI_BSEND_OVERHEAD	64

#define MPI_THREAD_SINGLE	0
#define MPI_THREAD_FUNNELED	1
#define MPI_THREAD_SERIALIZED	2
#define MPI_THREAD_MULTIPLE	3

/* Predefined attribute keys (MPI_Comm_get_attr, on every communicator). */
#define MPI_TAG_UB		0x64400001
#define MPI_HOST		0x64400002
#define MPI_IO			0x64400003
#define MPI_WTIME_IS_GLOBAL	0x64400004
#define MPI_LASTUSEDCODE	0x64400005
#define MPI_UNIVERSE_SIZE	0x64400006
#define MPI_APPNUM		0x64400007
#define MPI_KEYVAL_INVALID	0x24000000

/* Error classes. */
#define MPI_SUCCESS		0
#define MPI_ERR_BUFFER		1
#define MPI_ERR_COUNT		2
#define MPI_ERR_TYPE		3
#define MPI_ERR_TAG		4
#define MPI_ERR_COMM		5
#define MPI_ERR_RANK		6
#define MPI_ERR_REQUEST		7
#define MPI_ERR_ROOT		8
#define MPI_ERR_GROUP		9
#define MPI_ERR_OP		10
#define MPI_ERR_TOPOLOGY	11
#define MPI_ERR_DIMS		12
#define MPI_ERR_ARG		13
#define MPI_ERR_UNKNOWN		14
#define MPI_ERR_TRUNCATE	15
#define MPI_ERR_OTHER		16
#define MPI_ERR_INTERN		17
#define MPI_ERR_IN_STATUS	18
#define MPI_ERR_PENDING		19
#define MPI_ERR_CONVERSION	23	/* a value external32 cannot hold */
#define MPI_ERR_NAME		33
#define MPI_ERR_NO_MEM		34
#define MPI_ERR_PORT		38
#define MPI_ERR_SERVICE		41
#define MPI_ERR_SPAWN		42
#define MPI_ERR_UNSUPPORTED_DATAREP 43
#define MPI_ERR_KEYVAL		48
#define MPI_ERR_SESSION		74
#define MPI_ERR_PROC_FAILED_PENDING 72	/* a wildcard receive may wait for a dead rank (ULFM) */
#define MPI_ERR_REVOKED		73	/* the communicator was revoked (ULFM) */
#define MPI_ERR_PROC_FAILED	75	/* a peer rank died (as ULFM) */
#define MPIX_ERR_PROC_FAILED	MPI_ERR_PROC_FAILED
#define MPI_ERR_LASTCODE	94

/* ---- Environment ---------------------------------------------------- */

int MPI_Init(int *argc, char ***argv);
int MPI_Init_thread(int *argc, char ***argv, int required, int *provided);
int MPI_Finalize(void);
int MPI_Initialized(int *flag);
int MPI_Finalized(int *flag);
int MPI_Query_thread(int *provided);
int MPI_Is_thread_main(int *flag);
int MPI_Abort(MPI_Comm comm, int errorcode);
double MPI_Wtime(void);
double MPI_Wtick(void);
int MPI_Get_processor_name(char *name, int *resultlen);
int MPI_Get_version(int *version, int *subversion);
int MPI_Get_library_version(char *version, int *resultlen);
int MPI_Pcontrol(const int level, ...);
int MPI_Alloc_mem(MPI_Aint size, MPI_Info info, void *baseptr);
int MPI_Free_mem(void *base);

/* ---- Errors ----------------------------------------------------------- */

int MPI_Error_string(int errorcode, char *string, int *resultlen);
int MPI_Error_class(int errorcode, int *errorclass);
/* Classes and codes the program adds, numbered from MPI_ERR_LASTCODE + 1. */
int MPI_Add_error_class(int *errorclass);
int MPI_Add_error_code(int errorclass, int *errorcode);
int MPI_Add_error_string(int errorcode, const char *string);
typedef void (MPI_Comm_errhandler_function)(MPI_Comm *comm, int *code, ...);
typedef MPI_Comm_errhandler_function MPI_Comm_errhandler_fn;	/* MPI-2 name */

int MPI_Comm_create_errhandler(MPI_Comm_errhandler_function *comm_errhandler_fn,
			       MPI_Errhandler *errhandler);
int MPI_Comm_call_errhandler(MPI_Comm comm, int errorcode);
int MPI_Comm_set_errhandler(MPI_Comm comm, MPI_Errhandler errhandler);
int MPI_Comm_get_errhandler(MPI_Comm comm, MPI_Errhandler *errhandler);
int MPI_Errhandler_free(MPI_Errhandler *errhandler);

/* ---- Communicators ---------------------------------------------------- */

int MPI_Comm_size(MPI_Comm comm, int *size);
int MPI_Comm_rank(MPI_Comm comm, int *rank);
int MPI_Comm_dup(MPI_Comm comm, MPI_Comm *newcomm);
int MPI_Comm_idup(MPI_Comm comm, MPI_Comm *newcomm, MPI_Request *request);
int MPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm *newcomm);
int MPI_Comm_split_type(MPI_Comm comm, int split_type, int key,
			MPI_Info info, MPI_Comm *newcomm);
int MPI_Comm_dup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm);
int MPI_Comm_create(MPI_Comm comm, MPI_Group group, MPI_Comm *newcomm);
int MPI_Comm_create_group(MPI_Comm comm, MPI_Group group, int tag,
			  MPI_Comm *newcomm);
int MPI_Comm_free(MPI_Comm *comm);
int MPI_Comm_compare(MPI_Comm comm1, MPI_Comm comm2, int *result);
int MPI_Comm_test_inter(MPI_Comm comm, int *flag);
int MPI_Comm_set_name(MPI_Comm comm, const char *comm_name);
int MPI_Comm_get_name(MPI_Comm comm, char *comm_name, int *resultlen);
int MPI_Comm_group(MPI_Comm comm, MPI_Group *group);
int MPI_Comm_set_info(MPI_Comm comm, MPI_Info info);
int MPI_Comm_get_info(MPI_Comm comm, MPI_Info *info_used);
int MPI_Comm_idup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm,
			    MPI_Request *request);

/*
 * Sessions (MPI-4.0, session.c): the process sets "mpi://WORLD" and
 * "mpi://SELF", communicators made from their groups.  MPI_Init and
 * sessions may be used together; the library leaves the job when the
 * last of them is finalized, and cannot join it again after that.
 */
#define MPI_MAX_PSET_NAME_LEN	256
#define MPI_MAX_STRINGTAG_LEN	256

typedef void (MPI_Session_errhandler_function)(MPI_Session *session,
					       int *code, ...);

int MPI_Session_init(MPI_Info info, MPI_Errhandler errhandler,
		     MPI_Session *session);
int MPI_Session_finalize(MPI_Session *session);
int MPI_Session_get_num_psets(MPI_Session session, MPI_Info info,
			      int *npset_names);
int MPI_Session_get_nth_pset(MPI_Session session, MPI_Info info, int n,
			     int *pset_len, char *pset_name);
int MPI_Session_get_pset_info(MPI_Session session, const char *pset_name,
			      MPI_Info *info);
int MPI_Session_get_info(MPI_Session session, MPI_Info *info_used);
int MPI_Group_from_session_pset(MPI_Session session, const char *pset_name,
				MPI_Group *newgroup);
int MPI_Comm_create_from_group(MPI_Group group, const char *stringtag,
			       MPI_Info info, MPI_Errhandler errhandler,
			       MPI_Comm *newcomm);
int MPI_Session_create_errhandler(
	MPI_Session_errhandler_function *session_errhandler_fn,
	MPI_Errhandler *errhandler);
int MPI_Session_set_errhandler(MPI_Session session, MPI_Errhandler errhandler);
int MPI_Session_get_errhandler(MPI_Session session,
			       MPI_Errhandler *errhandler);
int MPI_Session_call_errhandler(MPI_Session session, int errorcode);

/*
 * Intercommunicators and spawned processes do not exist: every
 * communicator is an intracommunicator (intercomm.c).
 */
int MPI_Intercomm_create(MPI_Comm local_comm, int local_leader,
			 MPI_Comm peer_comm, int remote_leader, int tag,
			 MPI_Comm *newintercomm);
int MPI_Intercomm_merge(MPI_Comm intercomm, int high, MPI_Comm *newintracomm);
int MPI_Comm_remote_size(MPI_Comm comm, int *size);
int MPI_Comm_remote_group(MPI_Comm comm, MPI_Group *group);
int MPI_Comm_get_parent(MPI_Comm *parent);
int MPI_Comm_disconnect(MPI_Comm *comm);

/*
 * Dynamic processes: the job is the processes mpiexec started, so
 * MPI_Comm_spawn, _spawn_multiple, MPI_Open_port and MPI_Comm_join are
 * refused (MPI_ERR_UNSUPPORTED_OPERATION); no port is open and no name
 * published, so MPI_Comm_accept and _connect are MPI_ERR_PORT,
 * MPI_Close_port MPI_ERR_PORT, MPI_Lookup_name MPI_ERR_NAME,
 * MPI_Unpublish_name MPI_ERR_SERVICE, and MPI_Publish_name is refused.
 */
#define MPI_MAX_PORT_NAME	256
#define MPI_ARGV_NULL		((char **)0)
#define MPI_ARGVS_NULL		((char ***)0)
#define MPI_ERRCODES_IGNORE	((int *)0)

int MPI_Comm_spawn(const char *command, char *argv[], int maxprocs,
		   MPI_Info info, int root, MPI_Comm comm, MPI_Comm *intercomm,
		   int array_of_errcodes[]);
int MPI_Comm_spawn_multiple(int count, char *array_of_commands[],
			    char **array_of_argv[],
			    const int array_of_maxprocs[],
			    const MPI_Info array_of_info[], int root,
			    MPI_Comm comm, MPI_Comm *intercomm,
			    int array_of_errcodes[]);
int MPI_Open_port(MPI_Info info, char *port_name);
int MPI_Close_port(const char *port_name);
int MPI_Comm_accept(const char *port_name, MPI_Info info, int root,
		    MPI_Comm comm, MPI_Comm *newcomm);
int MPI_Comm_connect(const char *port_name, MPI_Info info, int root,
		     MPI_Comm comm, MPI_Comm *newcomm);
int MPI_Comm_join(int fd, MPI_Comm *intercomm);
int MPI_Publish_name(const char *service_name, MPI_Info info,
		     const char *port_name);
int MPI_Unpublish_name(const char *service_name, MPI_Info info,
		       const char *port_name);
int MPI_Lookup_name(const char *service_name, MPI_Info info,
		    char *port_name);
int MPI_Intercomm_create_from_groups(MPI_Group local_group, int local_leader,
				    MPI_Group remote_group, int remote_leader,
				    const char *stringtag, MPI_Info info,
				    MPI_Errhandler errhandler,
				    MPI_Comm *newintercomm);

/* ---- Groups ------------------------------------------------------------- */

int MPI_Group_size(MPI_Group group, int *size);
int MPI_Group_rank(MPI_Group group, int *rank);
int MPI_Group_translate_ranks(MPI_Group group1, int n, const int ranks1[],
			      MPI_Group group2, int ranks2[]);
int MPI_Group_compare(MPI_Group group1, MPI_Group group2, int *result);
int MPI_Group_union(MPI_Group group1, MPI_Group group2, MPI_Group *newgroup);
int MPI_Group_intersection(MPI_Group group1, MPI_Group group2,
			   MPI_Group *newgroup);
int MPI_Group_difference(MPI_Group group1, MPI_Group group2,
			 MPI_Group *newgroup);
int MPI_Group_incl(MPI_Group group, int n, const int ranks[],
		   MPI_Group *newgroup);
int MPI_Group_excl(MPI_Group group, int n, const int ranks[],
		   MPI_Group *newgroup);
int MPI_Group_range_incl(MPI_Group group, int n, int ranges[][3],
			 MPI_Group *newgroup);
int MPI_Group_range_excl(MPI_Group group, int n, int ranges[][3],
			 MPI_Group *newgroup);
int MPI_Group_free(MPI_Group *group);

/* ---- Attribute caching on communicators ------------------------------- */

typedef int (MPI_Comm_copy_attr_function)(MPI_Comm oldcomm, int comm_keyval,
					  void *extra_state,
					  void *attribute_val_in,
					  void *attribute_val_out, int *flag);
typedef int (MPI_Comm_delete_attr_function)(MPI_Comm comm, int comm_keyval,
					    void *attribute_val,
					    void *extra_state);

int libmsg_comm_null_copy_fn(MPI_Comm, int, void *, void *, void *, int *);
int libmsg_comm_dup_fn(MPI_Comm, int, void *, void *, void *, int *);
int libmsg_comm_null_delete_fn(MPI_Comm, int, void *, void *);
#define MPI_COMM_NULL_COPY_FN	libmsg_comm_null_copy_fn
#define MPI_COMM_DUP_FN		libmsg_comm_dup_fn
#define MPI_COMM_NULL_DELETE_FN	libmsg_comm_null_delete_fn

int MPI_Comm_create_keyval(MPI_Comm_copy_attr_function *comm_copy_attr_fn,
			   MPI_Comm_delete_attr_function *comm_delete_attr_fn,
			   int *comm_keyval, void *extra_state);
int MPI_Comm_free_keyval(int *comm_keyval);
int MPI_Comm_set_attr(MPI_Comm comm, int comm_keyval, void *attribute_val);
int MPI_Comm_get_attr(MPI_Comm comm, int comm_keyval, void *attribute_val,
		      int *flag);
int MPI_Comm_delete_attr(MPI_Comm comm, int comm_keyval);

/*
 * The MPI-1 names, deprecated since MPI-2 and still part of MPI: the
 * same calls on communicators.
 */
typedef MPI_Comm_copy_attr_function MPI_Copy_function;
typedef MPI_Comm_delete_attr_function MPI_Delete_function;
#define MPI_NULL_COPY_FN	libmsg_comm_null_copy_fn
#define MPI_DUP_FN		libmsg_comm_dup_fn
#define MPI_NULL_DELETE_FN	libmsg_comm_null_delete_fn
int MPI_Keyval_create(MPI_Copy_function *copy_fn,
		      MPI_Delete_function *delete_fn, int *keyval,
		      void *extra_state);
int MPI_Keyval_free(int *keyval);
int MPI_Attr_put(MPI_Comm comm, int keyval, void *attribute_val);
int MPI_Attr_get(MPI_Comm comm, int keyval, void *attribute_val, int *flag);
int MPI_Attr_delete(MPI_Comm comm, int keyval);

/*
 * The MPI-1 names MPI-3.0 removed, for old programs (src/mpi1.c): each
 * is its MPI-2 replacement under the old name and argument types.  The
 * MPI_LB and MPI_UB markers are not among them: a struct type's bounds
 * are set with MPI_Type_create_resized.
 */
typedef MPI_Comm_errhandler_function MPI_Handler_function;

int MPI_Address(void *location, MPI_Aint *address);
int MPI_Type_extent(MPI_Datatype datatype, MPI_Aint *extent);
int MPI_Type_lb(MPI_Datatype datatype, MPI_Aint *displacement);
int MPI_Type_ub(MPI_Datatype datatype, MPI_Aint *displacement);
int MPI_Type_hvector(int count, int blocklength, MPI_Aint stride,
		     MPI_Datatype oldtype, MPI_Datatype *newtype);
int MPI_Type_hindexed(int count, int array_of_blocklengths[],
		      MPI_Aint array_of_displacements[], MPI_Datatype oldtype,
		      MPI_Datatype *newtype);
int MPI_Type_struct(int count, int array_of_blocklengths[],
		    MPI_Aint array_of_displacements[],
		    MPI_Datatype array_of_types[], MPI_Datatype *newtype);
int MPI_Errhandler_create(MPI_Handler_function *function,
			  MPI_Errhandler *errhandler);
int MPI_Errhandler_set(MPI_Comm comm, MPI_Errhandler errhandler);
int MPI_Errhandler_get(MPI_Comm comm, MPI_Errhandler *errhandler);

/* ---- Attribute caching on datatypes ----------------------------------- */

typedef int (MPI_Type_copy_attr_function)(MPI_Datatype oldtype,
					  int type_keyval, void *extra_state,
					  void *attribute_val_in,
					  void *attribute_val_out, int *flag);
typedef int (MPI_Type_delete_attr_function)(MPI_Datatype datatype,
					    int type_keyval,
					    void *attribute_val,
					    void *extra_state);

int libmsg_type_null_copy_fn(MPI_Datatype, int, void *, void *, void *, int *);
int libmsg_type_dup_fn(MPI_Datatype, int, void *, void *, void *, int *);
int libmsg_type_null_delete_fn(MPI_Datatype, int, void *, void *);
#define MPI_TYPE_NULL_COPY_FN	libmsg_type_null_copy_fn
#define MPI_TYPE_DUP_FN		libmsg_type_dup_fn
#define MPI_TYPE_NULL_DELETE_FN	libmsg_type_null_delete_fn

int MPI_Type_create_keyval(MPI_Type_copy_attr_function *type_copy_attr_fn,
			   MPI_Type_delete_attr_function *type_delete_attr_fn,
			   int *type_keyval, void *extra_state);
int MPI_Type_free_keyval(int *type_keyval);
int MPI_Type_set_attr(MPI_Datatype datatype, int type_keyval,
		      void *attribute_val);
int MPI_Type_get_attr(MPI_Datatype datatype, int type_keyval,
		      void *attribute_val, int *flag);
int MPI_Type_delete_attr(MPI_Datatype datatype, int type_keyval);

/* ---- Datatypes -------------------------------------------------------- */

int MPI_Type_size(MPI_Datatype datatype, int *size);
/*
 * A predefined type of a class and size (MPI_Type_match_size), or of a
 * Fortran 90 precision and range (the f90 calls): the C types of that
 * size, which cannot be freed.
 */
#define MPI_TYPECLASS_REAL	1
#define MPI_TYPECLASS_INTEGER	2
#define MPI_TYPECLASS_COMPLEX	3
int MPI_Type_match_size(int typeclass, int size, MPI_Datatype *datatype);
int MPI_Type_create_f90_real(int p, int r, MPI_Datatype *newtype);
int MPI_Type_create_f90_complex(int p, int r, MPI_Datatype *newtype);
int MPI_Type_create_f90_integer(int r, MPI_Datatype *newtype);
int MPI_Type_get_extent(MPI_Datatype datatype, MPI_Aint *lb,
			MPI_Aint *extent);
int MPI_Get_count(const MPI_Status *status, MPI_Datatype datatype,
		  int *count);
int MPI_Get_elements(const MPI_Status *status, MPI_Datatype datatype,
		     int *count);

/* ---- Derived datatypes ---------------------------------------------------- */

#define MPI_ORDER_C		56
#define MPI_ORDER_FORTRAN	57

/* MPI_Type_create_darray: how each dimension is distributed. */
#define MPI_DISTRIBUTE_BLOCK		121
#define MPI_DISTRIBUTE_CYCLIC		122
#define MPI_DISTRIBUTE_NONE		123
#define MPI_DISTRIBUTE_DFLT_DARG	(-49767)

/* MPI_Type_get_envelope: how a type was made. */
#define MPI_COMBINER_NAMED		1
#define MPI_COMBINER_DUP		2
#define MPI_COMBINER_CONTIGUOUS		3
#define MPI_COMBINER_VECTOR		4
#define MPI_COMBINER_HVECTOR		5
#define MPI_COMBINER_INDEXED		6
#define MPI_COMBINER_HINDEXED		7
#define MPI_COMBINER_INDEXED_BLOCK	8
#define MPI_COMBINER_HINDEXED_BLOCK	9
#define MPI_COMBINER_STRUCT		10
#define MPI_COMBINER_SUBARRAY		11
#define MPI_COMBINER_DARRAY		12
#define MPI_COMBINER_F90_REAL		13
#define MPI_COMBINER_F90_COMPLEX	14
#define MPI_COMBINER_F90_INTEGER	15
#define MPI_COMBINER_RESIZED		16

int MPI_Type_contiguous(int count, MPI_Datatype oldtype,
			MPI_Datatype *newtype);
int MPI_Type_vector(int count, int blocklength, int stride,
		    MPI_Datatype oldtype, MPI_Datatype *newtype);
int MPI_Type_create_hvector(int count, int blocklength, MPI_Aint stride,
			    MPI_Datatype oldtype, MPI_Datatype *newtype);
int MPI_Type_indexed(int count, const int array_of_blocklengths[],
		     const int array_of_displacements[], MPI_Datatype oldtype,
		     MPI_Datatype *newtype);
int MPI_Type_create_hindexed(int count, const int array_of_blocklengths[],
			     const MPI_Aint array_of_displacements[],
			     MPI_Datatype oldtype, MPI_Datatype *newtype);
int MPI_Type_create_indexed_block(int count, int blocklength,
				  const int array_of_displacements[],
				  MPI_Datatype oldtype, MPI_Datatype *newtype);
int MPI_Type_create_hindexed_block(int count, int blocklength,
				   const MPI_Aint array_of_displacements[],
				   MPI_Datatype oldtype, MPI_Datatype *newtype);
int MPI_Type_create_struct(int count, const int array_of_blocklengths[],
			   const MPI_Aint array_of_displacements[],
			   const MPI_Datatype array_of_types[],
			   MPI_Datatype *newtype);
int MPI_Type_create_subarray(int ndims, const int array_of_sizes[],
			     const int array_of_subsizes[],
			     const int array_of_starts[], int order,
			     MPI_Datatype oldtype, MPI_Datatype *newtype);
int MPI_Type_create_darray(int size, int rank, int ndims,
			   const int array_of_gsizes[],
			   const int array_of_distribs[],
			   const int array_of_dargs[],
			   const int array_of_psizes[], int order,
			   MPI_Datatype oldtype, MPI_Datatype *newtype);
int MPI_Type_create_resized(MPI_Datatype oldtype, MPI_Aint lb,
			    MPI_Aint extent, MPI_Datatype *newtype);
int MPI_Type_dup(MPI_Datatype oldtype, MPI_Datatype *newtype);
int MPI_Type_get_envelope(MPI_Datatype datatype, int *num_integers,
			  int *num_addresses, int *num_datatypes,
			  int *combiner);
int MPI_Type_get_contents(MPI_Datatype datatype, int max_integers,
			  int max_addresses, int max_datatypes,
			  int array_of_integers[],
			  MPI_Aint array_of_addresses[],
			  MPI_Datatype array_of_datatypes[]);
int MPI_Type_commit(MPI_Datatype *datatype);
int MPI_Type_free(MPI_Datatype *datatype);
int MPI_Type_size_x(MPI_Datatype datatype, MPI_Count *size);
int MPI_Type_get_extent_x(MPI_Datatype datatype, MPI_Count *lb,
			  MPI_Count *extent);
int MPI_Type_get_true_extent(MPI_Datatype datatype, MPI_Aint *true_lb,
			     MPI_Aint *true_extent);
int MPI_Type_get_true_extent_x(MPI_Datatype datatype, MPI_Count *true_lb,
			       MPI_Count *true_extent);
int MPI_Type_set_name(MPI_Datatype datatype, const char *type_name);
int MPI_Type_get_name(MPI_Datatype datatype, char *type_name,
		      int *resultlen);
int MPI_Get_elements_x(const MPI_Status *status, MPI_Datatype datatype,
		       MPI_Count *count);
int MPI_Get_address(const void *location, MPI_Aint *address);
MPI_Aint MPI_Aint_add(MPI_Aint base, MPI_Aint disp);
MPI_Aint MPI_Aint_diff(MPI_Aint addr1, MPI_Aint addr2);
int MPI_Pack(const void *inbuf, int incount, MPI_Datatype datatype,
	     void *outbuf, int outsize, int *position, MPI_Comm comm);
int MPI_Unpack(const void *inbuf, int insize, int *position, void *outbuf,
	       int outcount, MPI_Datatype datatype, MPI_Comm comm);
int MPI_Pack_size(int incount, MPI_Datatype datatype, MPI_Comm comm,
		  int *size);
/* The portable form: datarep "external32" only (MPI-3.1 13.5.2). */
int MPI_Pack_external(const char datarep[], const void *inbuf, int incount,
		      MPI_Datatype datatype, void *outbuf, MPI_Aint outsize,
		      MPI_Aint *position);
int MPI_Unpack_external(const char datarep[], const void *inbuf,
			MPI_Aint insize, MPI_Aint *position, void *outbuf,
			int outcount, MPI_Datatype datatype);
int MPI_Pack_external_size(const char datarep[], int incount,
			   MPI_Datatype datatype, MPI_Aint *size);

/* ---- Point-to-point --------------------------------------------------- */

int MPI_Send(const void *buf, int count, MPI_Datatype datatype, int dest,
	     int tag, MPI_Comm comm);
int MPI_Ssend(const void *buf, int count, MPI_Datatype datatype, int dest,
	      int tag, MPI_Comm comm);
int MPI_Bsend(const void *buf, int count, MPI_Datatype datatype, int dest,
	      int tag, MPI_Comm comm);
int MPI_Rsend(const void *buf, int count, MPI_Datatype datatype, int dest,
	      int tag, MPI_Comm comm);
int MPI_Recv(void *buf, int count, MPI_Datatype datatype, int source,
	     int tag, MPI_Comm comm, MPI_Status *status);
int MPI_Isend(const void *buf, int count, MPI_Datatype datatype, int dest,
	      int tag, MPI_Comm comm, MPI_Request *request);
int MPI_Issend(const void *buf, int count, MPI_Datatype datatype, int dest,
	       int tag, MPI_Comm comm, MPI_Request *request);
int MPI_Ibsend(const void *buf, int count, MPI_Datatype datatype, int dest,
	       int tag, MPI_Comm comm, MPI_Request *request);
int MPI_Irsend(const void *buf, int count, MPI_Datatype datatype, int dest,
	       int tag, MPI_Comm comm, MPI_Request *request);
int MPI_Irecv(void *buf, int count, MPI_Datatype datatype, int source,
	      int tag, MPI_Comm comm, MPI_Request *request);

int MPI_Send_init(const void *buf, int count, MPI_Datatype datatype,
		  int dest, int tag, MPI_Comm comm, MPI_Request *request);
int MPI_Ssend_init(const void *buf, int count, MPI_Datatype datatype,
		   int dest, int tag, MPI_Comm comm, MPI_Request *request);
int MPI_Bsend_init(const void *buf, int count, MPI_Datatype datatype,
		   int dest, int tag, MPI_Comm comm, MPI_Request *request);
int MPI_Rsend_init(const void *buf, int count, MPI_Datatype datatype,
		   int dest, int tag, MPI_Comm comm, MPI_Request *request);
int MPI_Recv_init(void *buf, int count, MPI_Datatype datatype, int source,
		  int tag, MPI_Comm comm, MPI_Request *request);
int MPI_Start(MPI_Request *request);
int MPI_Startall(int count, MPI_Request array_of_requests[]);

/*
 * Partitioned communication (MPI-4.0, partitioned.c): a persistent send
 * of `partitions` blocks of count elements each, marked ready one by
 * one, and its receive.  They match each other only, never another
 * send or receive.
 */
int MPI_Psend_init(const void *buf, int partitions, int count,
		   MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
		   MPI_Info info, MPI_Request *request);
int MPI_Precv_init(void *buf, int partitions, int count,
		   MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
		   MPI_Info info, MPI_Request *request);
int MPI_Pready(int partition, MPI_Request request);
int MPI_Pready_range(int partition_low, int partition_high,
		     MPI_Request request);
int MPI_Pready_list(int length, const int array_of_partitions[],
		    MPI_Request request);
int MPI_Parrived(MPI_Request request, int partition, int *flag);

int MPI_Sendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
		 int dest, int sendtag, void *recvbuf, int recvcount,
		 MPI_Datatype recvtype, int source, int recvtag,
		 MPI_Comm comm, MPI_Status *status);
/* MPI-4.0: the same, nonblocking: one request for both. */
int MPI_Isendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
		  int dest, int sendtag, void *recvbuf, int recvcount,
		  MPI_Datatype recvtype, int source, int recvtag,
		  MPI_Comm comm, MPI_Request *request);
int MPI_Isendrecv_replace(void *buf, int count, MPI_Datatype datatype,
			  int dest, int sendtag, int source, int recvtag,
			  MPI_Comm comm, MPI_Request *request);
int MPI_Sendrecv_replace(void *buf, int count, MPI_Datatype datatype,
			 int dest, int sendtag, int source, int recvtag,
			 MPI_Comm comm, MPI_Status *status);

int MPI_Buffer_attach(void *buffer, int size);
int MPI_Buffer_detach(void *buffer_addr, int *size);

int MPI_Probe(int source, int tag, MPI_Comm comm, MPI_Status *status);
int MPI_Iprobe(int source, int tag, MPI_Comm comm, int *flag,
	       MPI_Status *status);
int MPI_Mprobe(int source, int tag, MPI_Comm comm, MPI_Message *message,
	       MPI_Status *status);
int MPI_Improbe(int source, int tag, MPI_Comm comm, int *flag,
		MPI_Message *message, MPI_Status *status);
int MPI_Mrecv(void *buf, int count, MPI_Datatype datatype,
	      MPI_Message *message, MPI_Status *status);
int MPI_Imrecv(void *buf, int count, MPI_Datatype datatype,
	       MPI_Message *message, MPI_Request *request);

/* ---- Completion ------------------------------------------------------- */

int MPI_Wait(MPI_Request *request, MPI_Status *status);
int MPI_Test(MPI_Request *request, int *flag, MPI_Status *status);
int MPI_Waitall(int count, MPI_Request array_of_requests[],
		MPI_Status array_of_statuses[]);
int MPI_Testall(int count, MPI_Request array_of_requests[], int *flag,
		MPI_Status array_of_statuses[]);
int MPI_Waitany(int count, MPI_Request array_of_requests[], int *index,
		MPI_Status *status);
int MPI_Testany(int count, MPI_Request array_of_requests[], int *index,
		int *flag, MPI_Status *status);
int MPI_Waitsome(int incount, MPI_Request array_of_requests[],
		 int *outcount, int array_of_indices[],
		 MPI_Status array_of_statuses[]);
int MPI_Testsome(int incount, MPI_Request array_of_requests[],
		 int *outcount, int array_of_indices[],
		 MPI_Status array_of_statuses[]);
int MPI_Request_free(MPI_Request *request);
int MPI_Request_get_status(MPI_Request request, int *flag,
			   MPI_Status *status);
int MPI_Cancel(MPI_Request *request);
int MPI_Test_cancelled(const MPI_Status *status, int *flag);

/* ---- Generalized requests --------------------------------------------- */

typedef int MPI_Grequest_query_function(void *extra_state, MPI_Status *status);
typedef int MPI_Grequest_free_function(void *extra_state);
typedef int MPI_Grequest_cancel_function(void *extra_state, int complete);

int MPI_Grequest_start(MPI_Grequest_query_function *query_fn,
		       MPI_Grequest_free_function *free_fn,
		       MPI_Grequest_cancel_function *cancel_fn,
		       void *extra_state, MPI_Request *request);
int MPI_Grequest_complete(MPI_Request request);
int MPI_Status_set_elements(MPI_Status *status, MPI_Datatype datatype,
			    int count);
int MPI_Status_set_elements_x(MPI_Status *status, MPI_Datatype datatype,
			      MPI_Count count);
int MPI_Status_set_cancelled(MPI_Status *status, int flag);

/* ---- Reduction operations --------------------------------------------- */

int MPI_Op_create(MPI_User_function *user_fn, int commute, MPI_Op *op);
int MPI_Op_free(MPI_Op *op);
int MPI_Op_commutative(MPI_Op op, int *commute);
int MPI_Reduce_local(const void *inbuf, void *inoutbuf, int count,
		     MPI_Datatype datatype, MPI_Op op);

/* ---- Collectives -------------------------------------------------------- */

int MPI_Barrier(MPI_Comm comm);
int MPI_Bcast(void *buffer, int count, MPI_Datatype datatype, int root,
	      MPI_Comm comm);
int MPI_Gather(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
	       void *recvbuf, int recvcount, MPI_Datatype recvtype, int root,
	       MPI_Comm comm);
int MPI_Gatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
		void *recvbuf, const int recvcounts[], const int displs[],
		MPI_Datatype recvtype, int root, MPI_Comm comm);
int MPI_Scatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
		void *recvbuf, int recvcount, MPI_Datatype recvtype, int root,
		MPI_Comm comm);
int MPI_Scatterv(const void *sendbuf, const int sendcounts[],
		 const int displs[], MPI_Datatype sendtype, void *recvbuf,
		 int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm);
int MPI_Allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
		  void *recvbuf, int recvcount, MPI_Datatype recvtype,
		  MPI_Comm comm);
int MPI_Allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
		   void *recvbuf, const int recvcounts[], const int displs[],
		   MPI_Datatype recvtype, MPI_Comm comm);
int MPI_Alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
		 void *recvbuf, int recvcount, MPI_Datatype recvtype,
		 MPI_Comm comm);
int MPI_Alltoallv(const void *sendbuf, const int sendcounts[],
		  const int sdispls[], MPI_Datatype sendtype, void *recvbuf,
		  const int recvcounts[], const int rdispls[],
		  MPI_Datatype recvtype, MPI_Comm comm);
int MPI_Alltoallw(const void *sendbuf, const int sendcounts[],
		  const int sdispls[], const MPI_Datatype sendtypes[],
		  void *recvbuf, const int recvcounts[], const int rdispls[],
		  const MPI_Datatype recvtypes[], MPI_Comm comm);
int MPI_Reduce(const void *sendbuf, void *recvbuf, int count,
	       MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm);
int MPI_Allreduce(const void *sendbuf, void *recvbuf, int count,
		  MPI_Datatype datatype, MPI_Op op, MPI_Comm comm);
int MPI_Reduce_scatter(const void *sendbuf, void *recvbuf,
		       const int recvcounts[], MPI_Datatype datatype,
		       MPI_Op op, MPI_Comm comm);
int MPI_Reduce_scatter_block(const void *sendbuf, void *recvbuf,
			     int recvcount, MPI_Datatype datatype, MPI_Op op,
			     MPI_Comm comm);
int MPI_Scan(const void *sendbuf, void *recvbuf, int count,
	     MPI_Datatype datatype, MPI_Op op, MPI_Comm comm);
int MPI_Exscan(const void *sendbuf, void *recvbuf, int count,
	       MPI_Datatype datatype, MPI_Op op, MPI_Comm comm);

int MPI_Ibarrier(MPI_Comm comm, MPI_Request *request);
int MPI_Ibcast(void *buffer, int count, MPI_Datatype datatype, int root,
	       MPI_Comm comm, MPI_Request *request);
int MPI_Igather(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
		void *recvbuf, int recvcount, MPI_Datatype recvtype, int root,
		MPI_Comm comm, MPI_Request *request);
int MPI_Igatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
		 void *recvbuf, const int recvcounts[], const int displs[],
		 MPI_Datatype recvtype, int root, MPI_Comm comm,
		 MPI_Request *request);
int MPI_Iscatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
		 void *recvbuf, int recvcount, MPI_Datatype recvtype, int root,
		 MPI_Comm comm, MPI_Request *request);
int MPI_Iscatterv(const void *sendbuf, const int sendcounts[],
		  const int displs[], MPI_Datatype sendtype, void *recvbuf,
		  int recvcount, MPI_Datatype recvtype, int root,
		  MPI_Comm comm, MPI_Request *request);
int MPI_Iallgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
		   void *recvbuf, int recvcount, MPI_Datatype recvtype,
		   MPI_Comm comm, MPI_Request *request);
int MPI_Iallgatherv(const void *sendbuf, int sendcount,
		    MPI_Datatype sendtype, void *recvbuf,
		    const int recvcounts[], const int displs[],
		    MPI_Datatype recvtype, MPI_Comm comm,
		    MPI_Request *request);
int MPI_Ialltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
		  void *recvbuf, int recvcount, MPI_Datatype recvtype,
		  MPI_Comm comm, MPI_Request *request);
int MPI_Ialltoallv(const void *sendbuf, const int sendcounts[],
		   const int sdispls[], MPI_Datatype sendtype, void *recvbuf,
		   const int recvcounts[], const int rdispls[],
		   MPI_Datatype recvtype, MPI_Comm comm,
		   MPI_Request *request);
int MPI_Ialltoallw(const void *sendbuf, const int sendcounts[],
		   const int sdispls[], const MPI_Datatype sendtypes[],
		   void *recvbuf, const int recvcounts[], const int rdispls[],
		   const MPI_Datatype recvtypes[], MPI_Comm comm,
		   MPI_Request *request);
int MPI_Ireduce(const void *sendbuf, void *recvbuf, int count,
		MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm,
		MPI_Request *request);
int MPI_Iallreduce(const void *sendbuf, void *recvbuf, int count,
		   MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
		   MPI_Request *request);
int MPI_Ireduce_scatter(const void *sendbuf, void *recvbuf,
			const int recvcounts[], MPI_Datatype datatype,
			MPI_Op op, MPI_Comm comm, MPI_Request *request);
int MPI_Ireduce_scatter_block(const void *sendbuf, void *recvbuf,
			      int recvcount, MPI_Datatype datatype, MPI_Op op,
			      MPI_Comm comm, MPI_Request *request);
int MPI_Iscan(const void *sendbuf, void *recvbuf, int count,
	      MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
	      MPI_Request *request);
int MPI_Iexscan(const void *sendbuf, void *recvbuf, int count,
		MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
		MPI_Request *request);

/*
 * Persistent collectives (MPI-4.0): an inactive request that each
 * MPI_Start runs once, completed by MPI_Wait/Test, freed with
 * MPI_Request_free.
 */
int MPI_Barrier_init(MPI_Comm comm, MPI_Info info, MPI_Request *request);
int MPI_Bcast_init(void *buffer, int count, MPI_Datatype datatype, int root,
		   MPI_Comm comm, MPI_Info info, MPI_Request *request);
int MPI_Gather_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
		    void *recvbuf, int recvcount, MPI_Datatype recvtype,
		    int root, MPI_Comm comm, MPI_Info info,
		    MPI_Request *request);
int MPI_Gatherv_init(const void *sendbuf, int sendcount,
		     MPI_Datatype sendtype, void *recvbuf,
		     const int recvcounts[], const int displs[],
		     MPI_Datatype recvtype, int root, MPI_Comm comm,
		     MPI_Info info, MPI_Request *request);
int MPI_Scatter_init(const void *sendbuf, int sendcount,
		     MPI_Datatype sendtype, void *recvbuf, int recvcount,
		     MPI_Datatype recvtype, int root, MPI_Comm comm,
		     MPI_Info info, MPI_Request *request);
int MPI_Scatterv_init(const void *sendbuf, const int sendcounts[],
		      const int displs[], MPI_Datatype sendtype,
		      void *recvbuf, int recvcount, MPI_Datatype recvtype,
		      int root, MPI_Comm comm, MPI_Info info,
		      MPI_Request *request);
int MPI_Allgather_init(const void *sendbuf, int sendcount,
		       MPI_Datatype sendtype, void *recvbuf, int recvcount,
		       MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
		       MPI_Request *request);
int MPI_Allgatherv_init(const void *sendbuf, int sendcount,
			MPI_Datatype sendtype, void *recvbuf,
			const int recvcounts[], const int displs[],
			MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
			MPI_Request *request);
int MPI_Alltoall_init(const void *sendbuf, int sendcount,
		      MPI_Datatype sendtype, void *recvbuf, int recvcount,
		      MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
		      MPI_Request *request);
int MPI_Alltoallv_init(const void *sendbuf, const int sendcounts[],
		       const int sdispls[], MPI_Datatype sendtype,
		       void *recvbuf, const int recvcounts[],
		       const int rdispls[], MPI_Datatype recvtype,
		       MPI_Comm comm, MPI_Info info, MPI_Request *request);
int MPI_Alltoallw_init(const void *sendbuf, const int sendcounts[],
		       const int sdispls[], const MPI_Datatype sendtypes[],
		       void *recvbuf, const int recvcounts[],
		       const int rdispls[], const MPI_Datatype recvtypes[],
		       MPI_Comm comm, MPI_Info info, MPI_Request *request);
int MPI_Reduce_init(const void *sendbuf, void *recvbuf, int count,
		    MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm,
		    MPI_Info info, MPI_Request *request);
int MPI_Allreduce_init(const void *sendbuf, void *recvbuf, int count,
		       MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
		       MPI_Info info, MPI_Request *request);
int MPI_Reduce_scatter_init(const void *sendbuf, void *recvbuf,
			    const int recvcounts[], MPI_Datatype datatype,
			    MPI_Op op, MPI_Comm comm, MPI_Info info,
			    MPI_Request *request);
int MPI_Reduce_scatter_block_init(const void *sendbuf, void *recvbuf,
				  int recvcount, MPI_Datatype datatype,
				  MPI_Op op, MPI_Comm comm, MPI_Info info,
				  MPI_Request *request);
int MPI_Scan_init(const void *sendbuf, void *recvbuf, int count,
		  MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
		  MPI_Info info, MPI_Request *request);
int MPI_Exscan_init(const void *sendbuf, void *recvbuf, int count,
		    MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
		    MPI_Info info, MPI_Request *request);

/* ---- Info objects ------------------------------------------------------ */

extern struct libmsg_info libmsg_info_env;
#define MPI_INFO_ENV		(&libmsg_info_env)

/* Buffer sizes that hold any key or value with its NUL. */
#define MPI_MAX_INFO_KEY	255
#define MPI_MAX_INFO_VAL	1024

#define MPI_ERR_INFO		28
#define MPI_ERR_INFO_KEY	29
#define MPI_ERR_INFO_VALUE	30
#define MPI_ERR_INFO_NOKEY	31

int MPI_Info_create(MPI_Info *info);
int MPI_Info_create_env(int argc, char *argv[], MPI_Info *info);
int MPI_Info_set(MPI_Info info, const char *key, const char *value);
int MPI_Info_delete(MPI_Info info, const char *key);
int MPI_Info_get(MPI_Info info, const char *key, int valuelen, char *value,
		 int *flag);
int MPI_Info_get_string(MPI_Info info, const char *key, int *buflen,
			char *value, int *flag);
int MPI_Info_get_valuelen(MPI_Info info, const char *key, int *valuelen,
			  int *flag);
int MPI_Info_get_nkeys(MPI_Info info, int *nkeys);
int MPI_Info_get_nthkey(MPI_Info info, int n, char *key);
int MPI_Info_dup(MPI_Info info, MPI_Info *newinfo);
int MPI_Info_free(MPI_Info *info);

/* ---- Process topologies ------------------------------------------------ */

/* MPI_Topo_test results. */
#define MPI_GRAPH		1
#define MPI_CART		2
#define MPI_DIST_GRAPH		3

extern int libmsg_unweighted[1], libmsg_weights_empty[1];
#define MPI_UNWEIGHTED		((int *)libmsg_unweighted)
#define MPI_WEIGHTS_EMPTY	((int *)libmsg_weights_empty)

int MPI_Dims_create(int nnodes, int ndims, int dims[]);
int MPI_Topo_test(MPI_Comm comm, int *status);

int MPI_Cart_create(MPI_Comm comm_old, int ndims, const int dims[],
		    const int periods[], int reorder, MPI_Comm *comm_cart);
int MPI_Cart_map(MPI_Comm comm, int ndims, const int dims[],
		 const int periods[], int *newrank);
int MPI_Cartdim_get(MPI_Comm comm, int *ndims);
int MPI_Cart_get(MPI_Comm comm, int maxdims, int dims[], int periods[],
		 int coords[]);
int MPI_Cart_rank(MPI_Comm comm, const int coords[], int *rank);
int MPI_Cart_coords(MPI_Comm comm, int rank, int maxdims, int coords[]);
int MPI_Cart_shift(MPI_Comm comm, int direction, int disp, int *rank_source,
		   int *rank_dest);
int MPI_Cart_sub(MPI_Comm comm, const int remain_dims[], MPI_Comm *newcomm);

int MPI_Graph_create(MPI_Comm comm_old, int nnodes, const int index[],
		     const int edges[], int reorder, MPI_Comm *comm_graph);
int MPI_Graph_map(MPI_Comm comm, int nnodes, const int index[],
		  const int edges[], int *newrank);
int MPI_Graphdims_get(MPI_Comm comm, int *nnodes, int *nedges);
int MPI_Graph_get(MPI_Comm comm, int maxindex, int maxedges, int index[],
		  int edges[]);
int MPI_Graph_neighbors_count(MPI_Comm comm, int rank, int *nneighbors);
int MPI_Graph_neighbors(MPI_Comm comm, int rank, int maxneighbors,
			int neighbors[]);

int MPI_Dist_graph_create_adjacent(MPI_Comm comm_old, int indegree,
				   const int sources[],
				   const int sourceweights[], int outdegree,
				   const int destinations[],
				   const int destweights[], MPI_Info info,
				   int reorder, MPI_Comm *comm_dist_graph);
int MPI_Dist_graph_create(MPI_Comm comm_old, int n, const int sources[],
			  const int degrees[], const int destinations[],
			  const int weights[], MPI_Info info, int reorder,
			  MPI_Comm *comm_dist_graph);
int MPI_Dist_graph_neighbors_count(MPI_Comm comm, int *indegree,
				   int *outdegree, int *weighted);
int MPI_Dist_graph_neighbors(MPI_Comm comm, int maxindegree, int sources[],
			     int sourceweights[], int maxoutdegree,
			     int destinations[], int destweights[]);

/* Neighbourhood collectives: over a communicator with a topology. */
int MPI_Neighbor_allgather(const void *sendbuf, int sendcount,
			   MPI_Datatype sendtype, void *recvbuf, int recvcount,
			   MPI_Datatype recvtype, MPI_Comm comm);
int MPI_Neighbor_allgatherv(const void *sendbuf, int sendcount,
			    MPI_Datatype sendtype, void *recvbuf,
			    const int recvcounts[], const int displs[],
			    MPI_Datatype recvtype, MPI_Comm comm);
int MPI_Neighbor_alltoall(const void *sendbuf, int sendcount,
			  MPI_Datatype sendtype, void *recvbuf, int recvcount,
			  MPI_Datatype recvtype, MPI_Comm comm);
int MPI_Neighbor_alltoallv(const void *sendbuf, const int sendcounts[],
			   const int sdispls[], MPI_Datatype sendtype,
			   void *recvbuf, const int recvcounts[],
			   const int rdispls[], MPI_Datatype recvtype,
			   MPI_Comm comm);
int MPI_Neighbor_alltoallw(const void *sendbuf, const int sendcounts[],
			   const MPI_Aint sdispls[],
			   const MPI_Datatype sendtypes[], void *recvbuf,
			   const int recvcounts[], const MPI_Aint rdispls[],
			   const MPI_Datatype recvtypes[], MPI_Comm comm);
int MPI_Ineighbor_allgather(const void *sendbuf, int sendcount,
			    MPI_Datatype sendtype, void *recvbuf,
			    int recvcount, MPI_Datatype recvtype,
			    MPI_Comm comm, MPI_Request *request);
int MPI_Ineighbor_allgatherv(const void *sendbuf, int sendcount,
			     MPI_Datatype sendtype, void *recvbuf,
			     const int recvcounts[], const int displs[],
			     MPI_Datatype recvtype, MPI_Comm comm,
			     MPI_Request *request);
int MPI_Ineighbor_alltoall(const void *sendbuf, int sendcount,
			   MPI_Datatype sendtype, void *recvbuf, int recvcount,
			   MPI_Datatype recvtype, MPI_Comm comm,
			   MPI_Request *request);
int MPI_Ineighbor_alltoallv(const void *sendbuf, const int sendcounts[],
			    const int sdispls[], MPI_Datatype sendtype,
			    void *recvbuf, const int recvcounts[],
			    const int rdispls[], MPI_Datatype recvtype,
			    MPI_Comm comm, MPI_Request *request);
int MPI_Ineighbor_alltoallw(const void *sendbuf, const int sendcounts[],
			    const MPI_Aint sdispls[],
			    const MPI_Datatype sendtypes[], void *recvbuf,
			    const int recvcounts[], const MPI_Aint rdispls[],
			    const MPI_Datatype recvtypes[], MPI_Comm comm,
			    MPI_Request *request);
int MPI_Neighbor_allgather_init(const void *sendbuf, int sendcount,
				MPI_Datatype sendtype, void *recvbuf,
				int recvcount, MPI_Datatype recvtype,
				MPI_Comm comm, MPI_Info info,
				MPI_Request *request);
int MPI_Neighbor_allgatherv_init(const void *sendbuf, int sendcount,
				 MPI_Datatype sendtype, void *recvbuf,
				 const int recvcounts[], const int displs[],
				 MPI_Datatype recvtype, MPI_Comm comm,
				 MPI_Info info, MPI_Request *request);
int MPI_Neighbor_alltoall_init(const void *sendbuf, int sendcount,
			       MPI_Datatype sendtype, void *recvbuf,
			       int recvcount, MPI_Datatype recvtype,
			       MPI_Comm comm, MPI_Info info,
			       MPI_Request *request);
int MPI_Neighbor_alltoallv_init(const void *sendbuf, const int sendcounts[],
				const int sdispls[], MPI_Datatype sendtype,
				void *recvbuf, const int recvcounts[],
				const int rdispls[], MPI_Datatype recvtype,
				MPI_Comm comm, MPI_Info info,
				MPI_Request *request);
int MPI_Neighbor_alltoallw_init(const void *sendbuf, const int sendcounts[],
				const MPI_Aint sdispls[],
				const MPI_Datatype sendtypes[], void *recvbuf,
				const int recvcounts[],
				const MPI_Aint rdispls[],
				const MPI_Datatype recvtypes[], MPI_Comm comm,
				MPI_Info info, MPI_Request *request);

/* ---- One-sided communication (MPI-3.1 chapter 11) ----------------------- */

struct libmsg_win;
typedef struct libmsg_win *MPI_Win;
#define MPI_WIN_NULL		((MPI_Win)0)

#define MPI_ERR_UNSUPPORTED_OPERATION 44

/* Error classes of windows and one-sided calls. */
#define MPI_ERR_WIN		45	/* invalid window */
#define MPI_ERR_BASE		46	/* invalid base address */
#define MPI_ERR_LOCKTYPE	47	/* invalid lock type */
#define MPI_ERR_RMA_CONFLICT	49	/* conflicting accesses to a window */
#define MPI_ERR_RMA_SYNC	50	/* wrong synchronization of RMA calls */
#define MPI_ERR_SIZE		51	/* invalid size */
#define MPI_ERR_DISP		52	/* invalid displacement */
#define MPI_ERR_ASSERT		53	/* invalid assertion */
#define MPI_ERR_RMA_RANGE	55	/* target memory outside the window */
#define MPI_ERR_RMA_ATTACH	56	/* memory cannot be attached */
#define MPI_ERR_RMA_SHARED	57	/* memory cannot be shared */
#define MPI_ERR_RMA_FLAVOR	58	/* the window's flavor does not allow it */

#define MPI_LOCK_EXCLUSIVE	234
#define MPI_LOCK_SHARED		235
#define MPI_MODE_NOCHECK	1024
#define MPI_MODE_NOSTORE	2048
#define MPI_MODE_NOPUT		4096
#define MPI_MODE_NOPRECEDE	8192
#define MPI_MODE_NOSUCCEED	16384

/* Predefined window attributes (MPI_Win_get_attr). */
#define MPI_WIN_BASE		0x64400011
#define MPI_WIN_SIZE		0x64400012
#define MPI_WIN_DISP_UNIT	0x64400013
#define MPI_WIN_CREATE_FLAVOR	0x64400014
#define MPI_WIN_MODEL		0x64400015

/* MPI_WIN_CREATE_FLAVOR's values. */
#define MPI_WIN_FLAVOR_CREATE	1
#define MPI_WIN_FLAVOR_ALLOCATE	2
#define MPI_WIN_FLAVOR_DYNAMIC	3
#define MPI_WIN_FLAVOR_SHARED	4
/* MPI_WIN_MODEL's values: libmsg's windows are all unified. */
#define MPI_WIN_SEPARATE	1
#define MPI_WIN_UNIFIED		2

typedef void (MPI_Win_errhandler_function)(MPI_Win *win, int *code, ...);
typedef MPI_Win_errhandler_function MPI_Win_errhandler_fn;	/* MPI-2 name */
typedef int (MPI_Win_copy_attr_function)(MPI_Win oldwin, int win_keyval,
					 void *extra_state,
					 void *attribute_val_in,
					 void *attribute_val_out, int *flag);
typedef int (MPI_Win_delete_attr_function)(MPI_Win win, int win_keyval,
					   void *attribute_val,
					   void *extra_state);

int libmsg_win_null_copy_fn(MPI_Win, int, void *, void *, void *, int *);
int libmsg_win_dup_fn(MPI_Win, int, void *, void *, void *, int *);
int libmsg_win_null_delete_fn(MPI_Win, int, void *, void *);
#define MPI_WIN_NULL_COPY_FN	libmsg_win_null_copy_fn
#define MPI_WIN_DUP_FN		libmsg_win_dup_fn
#define MPI_WIN_NULL_DELETE_FN	libmsg_win_null_delete_fn

int MPI_Win_create_keyval(MPI_Win_copy_attr_function *win_copy_attr_fn,
			  MPI_Win_delete_attr_function *win_delete_attr_fn,
			  int *win_keyval, void *extra_state);
int MPI_Win_free_keyval(int *win_keyval);
int MPI_Win_set_attr(MPI_Win win, int win_keyval, void *attribute_val);
int MPI_Win_get_attr(MPI_Win win, int win_keyval, void *attribute_val,
		     int *flag);
int MPI_Win_delete_attr(MPI_Win win, int win_keyval);
int MPI_Win_create_errhandler(MPI_Win_errhandler_function *win_errhandler_fn,
			      MPI_Errhandler *errhandler);
int MPI_Win_set_errhandler(MPI_Win win, MPI_Errhandler errhandler);
int MPI_Win_get_errhandler(MPI_Win win, MPI_Errhandler *errhandler);
int MPI_Win_call_errhandler(MPI_Win win, int errorcode);
int MPI_Win_get_group(MPI_Win win, MPI_Group *group);
int MPI_Win_set_name(MPI_Win win, const char *win_name);
int MPI_Win_get_name(MPI_Win win, char *win_name, int *resultlen);
int MPI_Win_set_info(MPI_Win win, MPI_Info info);
int MPI_Win_get_info(MPI_Win win, MPI_Info *info_used);

int MPI_Win_create(void *base, MPI_Aint size, int disp_unit, MPI_Info info,
		   MPI_Comm comm, MPI_Win *win);
int MPI_Win_allocate(MPI_Aint size, int disp_unit, MPI_Info info,
		     MPI_Comm comm, void *baseptr, MPI_Win *win);
int MPI_Win_allocate_shared(MPI_Aint size, int disp_unit, MPI_Info info,
			    MPI_Comm comm, void *baseptr, MPI_Win *win);
int MPI_Win_create_dynamic(MPI_Info info, MPI_Comm comm, MPI_Win *win);
int MPI_Win_shared_query(MPI_Win win, int rank, MPI_Aint *size,
			 int *disp_unit, void *baseptr);
int MPI_Win_attach(MPI_Win win, void *base, MPI_Aint size);
int MPI_Win_detach(MPI_Win win, const void *base);
int MPI_Win_free(MPI_Win *win);
int MPI_Win_fence(int assert, MPI_Win win);
int MPI_Win_start(MPI_Group group, int assert, MPI_Win win);
int MPI_Win_complete(MPI_Win win);
int MPI_Win_post(MPI_Group group, int assert, MPI_Win win);
int MPI_Win_wait(MPI_Win win);
int MPI_Win_test(MPI_Win win, int *flag);
int MPI_Win_lock(int lock_type, int rank, int assert, MPI_Win win);
int MPI_Win_unlock(int rank, MPI_Win win);
int MPI_Win_lock_all(int assert, MPI_Win win);
int MPI_Win_unlock_all(MPI_Win win);
int MPI_Win_flush(int rank, MPI_Win win);
int MPI_Win_flush_all(MPI_Win win);
int MPI_Win_flush_local(int rank, MPI_Win win);
int MPI_Win_flush_local_all(MPI_Win win);
int MPI_Win_sync(MPI_Win win);
int MPI_Put(const void *origin_addr, int origin_count,
	    MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp,
	    int target_count, MPI_Datatype target_datatype, MPI_Win win);
int MPI_Get(void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
	    int target_rank, MPI_Aint target_disp, int target_count,
	    MPI_Datatype target_datatype, MPI_Win win);
int MPI_Accumulate(const void *origin_addr, int origin_count,
		   MPI_Datatype origin_datatype, int target_rank,
		   MPI_Aint target_disp, int target_count,
		   MPI_Datatype target_datatype, MPI_Op op, MPI_Win win);
int MPI_Get_accumulate(const void *origin_addr, int origin_count,
		       MPI_Datatype origin_datatype, void *result_addr,
		       int result_count, MPI_Datatype result_datatype,
		       int target_rank, MPI_Aint target_disp, int target_count,
		       MPI_Datatype target_datatype, MPI_Op op, MPI_Win win);
int MPI_Fetch_and_op(const void *origin_addr, void *result_addr,
		     MPI_Datatype datatype, int target_rank,
		     MPI_Aint target_disp, MPI_Op op, MPI_Win win);
int MPI_Compare_and_swap(const void *origin_addr, const void *compare_addr,
			 void *result_addr, MPI_Datatype datatype,
			 int target_rank, MPI_Aint target_disp, MPI_Win win);
int MPI_Rput(const void *origin_addr, int origin_count,
	     MPI_Datatype origin_datatype, int target_rank,
	     MPI_Aint target_disp, int target_count,
	     MPI_Datatype target_datatype, MPI_Win win, MPI_Request *request);
int MPI_Rget(void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
	     int target_rank, MPI_Aint target_disp, int target_count,
	     MPI_Datatype target_datatype, MPI_Win win, MPI_Request *request);
int MPI_Raccumulate(const void *origin_addr, int origin_count,
		    MPI_Datatype origin_datatype, int target_rank,
		    MPI_Aint target_disp, int target_count,
		    MPI_Datatype target_datatype, MPI_Op op, MPI_Win win,
		    MPI_Request *request);
int MPI_Rget_accumulate(const void *origin_addr, int origin_count,
			MPI_Datatype origin_datatype, void *result_addr,
			int result_count, MPI_Datatype result_datatype,
			int target_rank, MPI_Aint target_disp,
			int target_count, MPI_Datatype target_datatype,
			MPI_Op op, MPI_Win win, MPI_Request *request);

/* ---- Large counts (MPI-4.0 section 2.5.8): the _c functions ---------------
 * The same calls with MPI_Count counts and MPI_Aint displacements.  A
 * count over INT_MAX moves as one element of a contiguous type of that
 * many elements (libmsg/README.md, "Large counts").
 */
int MPI_Send_c(const void *buf, MPI_Count count, MPI_Datatype datatype,
	       int dest, int tag, MPI_Comm comm);
int MPI_Ssend_c(const void *buf, MPI_Count count, MPI_Datatype datatype,
		int dest, int tag, MPI_Comm comm);
int MPI_Bsend_c(const void *buf, MPI_Count count, MPI_Datatype datatype,
		int dest, int tag, MPI_Comm comm);
int MPI_Rsend_c(const void *buf, MPI_Count count, MPI_Datatype datatype,
		int dest, int tag, MPI_Comm comm);
int MPI_Recv_c(void *buf, MPI_Count count, MPI_Datatype datatype, int source,
	       int tag, MPI_Comm comm, MPI_Status *status);
int MPI_Isend_c(const void *buf, MPI_Count count, MPI_Datatype datatype,
		int dest, int tag, MPI_Comm comm, MPI_Request *request);
int MPI_Issend_c(const void *buf, MPI_Count count, MPI_Datatype datatype,
		 int dest, int tag, MPI_Comm comm, MPI_Request *request);
int MPI_Ibsend_c(const void *buf, MPI_Count count, MPI_Datatype datatype,
		 int dest, int tag, MPI_Comm comm, MPI_Request *request);
int MPI_Irsend_c(const void *buf, MPI_Count count, MPI_Datatype datatype,
		 int dest, int tag, MPI_Comm comm, MPI_Request *request);
int MPI_Send_init_c(const void *buf, MPI_Count count, MPI_Datatype datatype,
		    int dest, int tag, MPI_Comm comm, MPI_Request *request);
int MPI_Ssend_init_c(const void *buf, MPI_Count count, MPI_Datatype datatype,
		     int dest, int tag, MPI_Comm comm, MPI_Request *request);
int MPI_Bsend_init_c(const void *buf, MPI_Count count, MPI_Datatype datatype,
		     int dest, int tag, MPI_Comm comm, MPI_Request *request);
int MPI_Rsend_init_c(const void *buf, MPI_Count count, MPI_Datatype datatype,
		     int dest, int tag, MPI_Comm comm, MPI_Request *request);
int MPI_Irecv_c(void *buf, MPI_Count count, MPI_Datatype datatype, int source,
		int tag, MPI_Comm comm, MPI_Request *request);
int MPI_Recv_init_c(void *buf, MPI_Count count, MPI_Datatype datatype,
		    int source, int tag, MPI_Comm comm, MPI_Request *request);
int MPI_Sendrecv_c(const void *sendbuf, MPI_Count sendcount,
		   MPI_Datatype sendtype, int dest, int sendtag,
		   void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
		   int source, int recvtag, MPI_Comm comm,
		   MPI_Status *status);
int MPI_Sendrecv_replace_c(void *buf, MPI_Count count, MPI_Datatype datatype,
			   int dest, int sendtag, int source, int recvtag,
			   MPI_Comm comm, MPI_Status *status);
int MPI_Isendrecv_c(const void *sendbuf, MPI_Count sendcount,
		    MPI_Datatype sendtype, int dest, int sendtag,
		    void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
		    int source, int recvtag, MPI_Comm comm,
		    MPI_Request *request);
int MPI_Isendrecv_replace_c(void *buf, MPI_Count count, MPI_Datatype datatype,
			    int dest, int sendtag, int source, int recvtag,
			    MPI_Comm comm, MPI_Request *request);
int MPI_Mrecv_c(void *buf, MPI_Count count, MPI_Datatype datatype,
		MPI_Message *message, MPI_Status *status);
int MPI_Imrecv_c(void *buf, MPI_Count count, MPI_Datatype datatype,
		 MPI_Message *message, MPI_Request *request);
int MPI_Buffer_attach_c(void *buffer, MPI_Count size);
int MPI_Buffer_detach_c(void *buffer_addr, MPI_Count *size);
int MPI_Bcast_c(void *buffer, MPI_Count count, MPI_Datatype datatype,
		int root, MPI_Comm comm);
int MPI_Ibcast_c(void *buffer, MPI_Count count, MPI_Datatype datatype,
		 int root, MPI_Comm comm, MPI_Request *request);
int MPI_Bcast_init_c(void *buffer, MPI_Count count, MPI_Datatype datatype,
		     int root, MPI_Comm comm, MPI_Info info,
		     MPI_Request *request);
int MPI_Gather_c(const void *sendbuf, MPI_Count sendcount,
		 MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount,
		 MPI_Datatype recvtype, int root, MPI_Comm comm);
int MPI_Igather_c(const void *sendbuf, MPI_Count sendcount,
		  MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount,
		  MPI_Datatype recvtype, int root, MPI_Comm comm,
		  MPI_Request *request);
int MPI_Gather_init_c(const void *sendbuf, MPI_Count sendcount,
		      MPI_Datatype sendtype, void *recvbuf,
		      MPI_Count recvcount, MPI_Datatype recvtype, int root,
		      MPI_Comm comm, MPI_Info info, MPI_Request *request);
int MPI_Gatherv_c(const void *sendbuf, MPI_Count sendcount,
		  MPI_Datatype sendtype, void *recvbuf,
		  const MPI_Count recvcounts[], const MPI_Aint displs[],
		  MPI_Datatype recvtype, int root, MPI_Comm comm);
int MPI_Igatherv_c(const void *sendbuf, MPI_Count sendcount,
		   MPI_Datatype sendtype, void *recvbuf,
		   const MPI_Count recvcounts[], const MPI_Aint displs[],
		   MPI_Datatype recvtype, int root, MPI_Comm comm,
		   MPI_Request *request);
int MPI_Gatherv_init_c(const void *sendbuf, MPI_Count sendcount,
		       MPI_Datatype sendtype, void *recvbuf,
		       const MPI_Count recvcounts[], const MPI_Aint displs[],
		       MPI_Datatype recvtype, int root, MPI_Comm comm,
		       MPI_Info info, MPI_Request *request);
int MPI_Scatter_c(const void *sendbuf, MPI_Count sendcount,
		  MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount,
		  MPI_Datatype recvtype, int root, MPI_Comm comm);
int MPI_Iscatter_c(const void *sendbuf, MPI_Count sendcount,
		   MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount,
		   MPI_Datatype recvtype, int root, MPI_Comm comm,
		   MPI_Request *request);
int MPI_Scatter_init_c(const void *sendbuf, MPI_Count sendcount,
		       MPI_Datatype sendtype, void *recvbuf,
		       MPI_Count recvcount, MPI_Datatype recvtype, int root,
		       MPI_Comm comm, MPI_Info info, MPI_Request *request);
int MPI_Scatterv_c(const void *sendbuf, const MPI_Count sendcounts[],
		   const MPI_Aint displs[], MPI_Datatype sendtype,
		   void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
		   int root, MPI_Comm comm);
int MPI_Iscatterv_c(const void *sendbuf, const MPI_Count sendcounts[],
		    const MPI_Aint displs[], MPI_Datatype sendtype,
		    void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
		    int root, MPI_Comm comm, MPI_Request *request);
int MPI_Scatterv_init_c(const void *sendbuf, const MPI_Count sendcounts[],
			const MPI_Aint displs[], MPI_Datatype sendtype,
			void *recvbuf, MPI_Count recvcount,
			MPI_Datatype recvtype, int root, MPI_Comm comm,
			MPI_Info info, MPI_Request *request);
int MPI_Allgather_c(const void *sendbuf, MPI_Count sendcount,
		    MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount,
		    MPI_Datatype recvtype, MPI_Comm comm);
int MPI_Iallgather_c(const void *sendbuf, MPI_Count sendcount,
		     MPI_Datatype sendtype, void *recvbuf,
		     MPI_Count recvcount, MPI_Datatype recvtype,
		     MPI_Comm comm, MPI_Request *request);
int MPI_Allgather_init_c(const void *sendbuf, MPI_Count sendcount,
			 MPI_Datatype sendtype, void *recvbuf,
			 MPI_Count recvcount, MPI_Datatype recvtype,
			 MPI_Comm comm, MPI_Info info, MPI_Request *request);
int MPI_Allgatherv_c(const void *sendbuf, MPI_Count sendcount,
		     MPI_Datatype sendtype, void *recvbuf,
		     const MPI_Count recvcounts[], const MPI_Aint displs[],
		     MPI_Datatype recvtype, MPI_Comm comm);
int MPI_Iallgatherv_c(const void *sendbuf, MPI_Count sendcount,
		      MPI_Datatype sendtype, void *recvbuf,
		      const MPI_Count recvcounts[], const MPI_Aint displs[],
		      MPI_Datatype recvtype, MPI_Comm comm,
		      MPI_Request *request);
int MPI_Allgatherv_init_c(const void *sendbuf, MPI_Count sendcount,
			  MPI_Datatype sendtype, void *recvbuf,
			  const MPI_Count recvcounts[],
			  const MPI_Aint displs[], MPI_Datatype recvtype,
			  MPI_Comm comm, MPI_Info info, MPI_Request *request);
int MPI_Alltoall_c(const void *sendbuf, MPI_Count sendcount,
		   MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount,
		   MPI_Datatype recvtype, MPI_Comm comm);
int MPI_Ialltoall_c(const void *sendbuf, MPI_Count sendcount,
		    MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount,
		    MPI_Datatype recvtype, MPI_Comm comm,
		    MPI_Request *request);
int MPI_Alltoall_init_c(const void *sendbuf, MPI_Count sendcount,
			MPI_Datatype sendtype, void *recvbuf,
			MPI_Count recvcount, MPI_Datatype recvtype,
			MPI_Comm comm, MPI_Info info, MPI_Request *request);
int MPI_Alltoallv_c(const void *sendbuf, const MPI_Count sendcounts[],
		    const MPI_Aint sdispls[], MPI_Datatype sendtype,
		    void *recvbuf, const MPI_Count recvcounts[],
		    const MPI_Aint rdispls[], MPI_Datatype recvtype,
		    MPI_Comm comm);
int MPI_Ialltoallv_c(const void *sendbuf, const MPI_Count sendcounts[],
		     const MPI_Aint sdispls[], MPI_Datatype sendtype,
		     void *recvbuf, const MPI_Count recvcounts[],
		     const MPI_Aint rdispls[], MPI_Datatype recvtype,
		     MPI_Comm comm, MPI_Request *request);
int MPI_Alltoallv_init_c(const void *sendbuf, const MPI_Count sendcounts[],
			 const MPI_Aint sdispls[], MPI_Datatype sendtype,
			 void *recvbuf, const MPI_Count recvcounts[],
			 const MPI_Aint rdispls[], MPI_Datatype recvtype,
			 MPI_Comm comm, MPI_Info info, MPI_Request *request);
int MPI_Alltoallw_c(const void *sendbuf, const MPI_Count sendcounts[],
		    const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],
		    void *recvbuf, const MPI_Count recvcounts[],
		    const MPI_Aint rdispls[], const MPI_Datatype recvtypes[],
		    MPI_Comm comm);
int MPI_Ialltoallw_c(const void *sendbuf, const MPI_Count sendcounts[],
		     const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],
		     void *recvbuf, const MPI_Count recvcounts[],
		     const MPI_Aint rdispls[], const MPI_Datatype recvtypes[],
		     MPI_Comm comm, MPI_Request *request);
int MPI_Alltoallw_init_c(const void *sendbuf, const MPI_Count sendcounts[],
			 const MPI_Aint sdispls[],
			 const MPI_Datatype sendtypes[], void *recvbuf,
			 const MPI_Count recvcounts[],
			 const MPI_Aint rdispls[],
			 const MPI_Datatype recvtypes[], MPI_Comm comm,
			 MPI_Info info, MPI_Request *request);
int MPI_Reduce_c(const void *sendbuf, void *recvbuf, MPI_Count count,
		 MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm);
int MPI_Ireduce_c(const void *sendbuf, void *recvbuf, MPI_Count count,
		  MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm,
		  MPI_Request *request);
int MPI_Reduce_init_c(const void *sendbuf, void *recvbuf, MPI_Count count,
		      MPI_Datatype datatype, MPI_Op op, int root,
		      MPI_Comm comm, MPI_Info info, MPI_Request *request);
int MPI_Allreduce_c(const void *sendbuf, void *recvbuf, MPI_Count count,
		    MPI_Datatype datatype, MPI_Op op, MPI_Comm comm);
int MPI_Iallreduce_c(const void *sendbuf, void *recvbuf, MPI_Count count,
		     MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
		     MPI_Request *request);
int MPI_Allreduce_init_c(const void *sendbuf, void *recvbuf, MPI_Count count,
			 MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
			 MPI_Info info, MPI_Request *request);
int MPI_Reduce_scatter_c(const void *sendbuf, void *recvbuf,
			 const MPI_Count recvcounts[], MPI_Datatype datatype,
			 MPI_Op op, MPI_Comm comm);
int MPI_Ireduce_scatter_c(const void *sendbuf, void *recvbuf,
			  const MPI_Count recvcounts[], MPI_Datatype datatype,
			  MPI_Op op, MPI_Comm comm, MPI_Request *request);
int MPI_Reduce_scatter_init_c(const void *sendbuf, void *recvbuf,
			      const MPI_Count recvcounts[],
			      MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
			      MPI_Info info, MPI_Request *request);
int MPI_Reduce_scatter_block_c(const void *sendbuf, void *recvbuf,
			       MPI_Count recvcount, MPI_Datatype datatype,
			       MPI_Op op, MPI_Comm comm);
int MPI_Ireduce_scatter_block_c(const void *sendbuf, void *recvbuf,
				MPI_Count recvcount, MPI_Datatype datatype,
				MPI_Op op, MPI_Comm comm,
				MPI_Request *request);
int MPI_Reduce_scatter_block_init_c(const void *sendbuf, void *recvbuf,
				    MPI_Count recvcount,
				    MPI_Datatype datatype, MPI_Op op,
				    MPI_Comm comm, MPI_Info info,
				    MPI_Request *request);
int MPI_Scan_c(const void *sendbuf, void *recvbuf, MPI_Count count,
	       MPI_Datatype datatype, MPI_Op op, MPI_Comm comm);
int MPI_Iscan_c(const void *sendbuf, void *recvbuf, MPI_Count count,
		MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
		MPI_Request *request);
int MPI_Scan_init_c(const void *sendbuf, void *recvbuf, MPI_Count count,
		    MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
		    MPI_Info info, MPI_Request *request);
int MPI_Exscan_c(const void *sendbuf, void *recvbuf, MPI_Count count,
		 MPI_Datatype datatype, MPI_Op op, MPI_Comm comm);
int MPI_Iexscan_c(const void *sendbuf, void *recvbuf, MPI_Count count,
		  MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
		  MPI_Request *request);
int MPI_Exscan_init_c(const void *sendbuf, void *recvbuf, MPI_Count count,
		      MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
		      MPI_Info info, MPI_Request *request);
int MPI_Reduce_local_c(const void *inbuf, void *inoutbuf, MPI_Count count,
		       MPI_Datatype datatype, MPI_Op op);
int MPI_Pack_c(const void *inbuf, MPI_Count incount, MPI_Datatype datatype,
	       void *outbuf, MPI_Count outsize, MPI_Count *position,
	       MPI_Comm comm);
int MPI_Unpack_c(const void *inbuf, MPI_Count insize, MPI_Count *position,
		 void *outbuf, MPI_Count outcount, MPI_Datatype datatype,
		 MPI_Comm comm);
int MPI_Pack_size_c(MPI_Count incount, MPI_Datatype datatype, MPI_Comm comm,
		    MPI_Count *size);
int MPI_Pack_external_c(const char datarep[], const void *inbuf,
			MPI_Count incount, MPI_Datatype datatype,
			void *outbuf, MPI_Count outsize, MPI_Count *position);
int MPI_Unpack_external_c(const char datarep[], const void *inbuf,
			  MPI_Count insize, MPI_Count *position, void *outbuf,
			  MPI_Count outcount, MPI_Datatype datatype);
int MPI_Pack_external_size_c(const char datarep[], MPI_Count incount,
			     MPI_Datatype datatype, MPI_Count *size);
int MPI_Neighbor_allgather_c(const void *sendbuf, MPI_Count sendcount,
			     MPI_Datatype sendtype, void *recvbuf,
			     MPI_Count recvcount, MPI_Datatype recvtype,
			     MPI_Comm comm);
int MPI_Ineighbor_allgather_c(const void *sendbuf, MPI_Count sendcount,
			      MPI_Datatype sendtype, void *recvbuf,
			      MPI_Count recvcount, MPI_Datatype recvtype,
			      MPI_Comm comm, MPI_Request *request);
int MPI_Neighbor_allgather_init_c(const void *sendbuf, MPI_Count sendcount,
				  MPI_Datatype sendtype, void *recvbuf,
				  MPI_Count recvcount, MPI_Datatype recvtype,
				  MPI_Comm comm, MPI_Info info,
				  MPI_Request *request);
int MPI_Neighbor_alltoall_c(const void *sendbuf, MPI_Count sendcount,
			    MPI_Datatype sendtype, void *recvbuf,
			    MPI_Count recvcount, MPI_Datatype recvtype,
			    MPI_Comm comm);
int MPI_Ineighbor_alltoall_c(const void *sendbuf, MPI_Count sendcount,
			     MPI_Datatype sendtype, void *recvbuf,
			     MPI_Count recvcount, MPI_Datatype recvtype,
			     MPI_Comm comm, MPI_Request *request);
int MPI_Neighbor_alltoall_init_c(const void *sendbuf, MPI_Count sendcount,
				 MPI_Datatype sendtype, void *recvbuf,
				 MPI_Count recvcount, MPI_Datatype recvtype,
				 MPI_Comm comm, MPI_Info info,
				 MPI_Request *request);
int MPI_Neighbor_allgatherv_c(const void *sendbuf, MPI_Count sendcount,
			      MPI_Datatype sendtype, void *recvbuf,
			      const MPI_Count recvcounts[],
			      const MPI_Aint displs[], MPI_Datatype recvtype,
			      MPI_Comm comm);
int MPI_Ineighbor_allgatherv_c(const void *sendbuf, MPI_Count sendcount,
			       MPI_Datatype sendtype, void *recvbuf,
			       const MPI_Count recvcounts[],
			       const MPI_Aint displs[], MPI_Datatype recvtype,
			       MPI_Comm comm, MPI_Request *request);
int MPI_Neighbor_allgatherv_init_c(const void *sendbuf, MPI_Count sendcount,
				   MPI_Datatype sendtype, void *recvbuf,
				   const MPI_Count recvcounts[],
				   const MPI_Aint displs[],
				   MPI_Datatype recvtype, MPI_Comm comm,
				   MPI_Info info, MPI_Request *request);
int MPI_Neighbor_alltoallv_c(const void *sendbuf, const MPI_Count sendcounts[],
			     const MPI_Aint sdispls[], MPI_Datatype sendtype,
			     void *recvbuf, const MPI_Count recvcounts[],
			     const MPI_Aint rdispls[], MPI_Datatype recvtype,
			     MPI_Comm comm);
int MPI_Ineighbor_alltoallv_c(const void *sendbuf,
			      const MPI_Count sendcounts[],
			      const MPI_Aint sdispls[], MPI_Datatype sendtype,
			      void *recvbuf, const MPI_Count recvcounts[],
			      const MPI_Aint rdispls[], MPI_Datatype recvtype,
			      MPI_Comm comm, MPI_Request *request);
int MPI_Neighbor_alltoallv_init_c(const void *sendbuf,
				  const MPI_Count sendcounts[],
				  const MPI_Aint sdispls[],
				  MPI_Datatype sendtype, void *recvbuf,
				  const MPI_Count recvcounts[],
				  const MPI_Aint rdispls[],
				  MPI_Datatype recvtype, MPI_Comm comm,
				  MPI_Info info, MPI_Request *request);
int MPI_Neighbor_alltoallw_c(const void *sendbuf, const MPI_Count sendcounts[],
			     const MPI_Aint sdispls[],
			     const MPI_Datatype sendtypes[], void *recvbuf,
			     const MPI_Count recvcounts[],
			     const MPI_Aint rdispls[],
			     const MPI_Datatype recvtypes[], MPI_Comm comm);
int MPI_Ineighbor_alltoallw_c(const void *sendbuf,
			      const MPI_Count sendcounts[],
			      const MPI_Aint sdispls[],
			      const MPI_Datatype sendtypes[], void *recvbuf,
			      const MPI_Count recvcounts[],
			      const MPI_Aint rdispls[],
			      const MPI_Datatype recvtypes[], MPI_Comm comm,
			      MPI_Request *request);
int MPI_Neighbor_alltoallw_init_c(const void *sendbuf,
				  const MPI_Count sendcounts[],
				  const MPI_Aint sdispls[],
				  const MPI_Datatype sendtypes[], void *recvbuf,
				  const MPI_Count recvcounts[],
				  const MPI_Aint rdispls[],
				  const MPI_Datatype recvtypes[],
				  MPI_Comm comm, MPI_Info info,
				  MPI_Request *request);
int MPI_Put_c(const void *origin_addr, MPI_Count origin_count,
	      MPI_Datatype origin_datatype, int target_rank,
	      MPI_Aint target_disp, MPI_Count target_count,
	      MPI_Datatype target_datatype, MPI_Win win);
int MPI_Get_c(void *origin_addr, MPI_Count origin_count,
	      MPI_Datatype origin_datatype, int target_rank,
	      MPI_Aint target_disp, MPI_Count target_count,
	      MPI_Datatype target_datatype, MPI_Win win);
int MPI_Accumulate_c(const void *origin_addr, MPI_Count origin_count,
		     MPI_Datatype origin_datatype, int target_rank,
		     MPI_Aint target_disp, MPI_Count target_count,
		     MPI_Datatype target_datatype, MPI_Op op, MPI_Win win);
int MPI_Get_accumulate_c(const void *origin_addr, MPI_Count origin_count,
			 MPI_Datatype origin_datatype, void *result_addr,
			 MPI_Count result_count, MPI_Datatype result_datatype,
			 int target_rank, MPI_Aint target_disp,
			 MPI_Count target_count, MPI_Datatype target_datatype,
			 MPI_Op op, MPI_Win win);
int MPI_Rput_c(const void *origin_addr, MPI_Count origin_count,
	       MPI_Datatype origin_datatype, int target_rank,
	       MPI_Aint target_disp, MPI_Count target_count,
	       MPI_Datatype target_datatype, MPI_Win win, MPI_Request *request);
int MPI_Rget_c(void *origin_addr, MPI_Count origin_count,
	       MPI_Datatype origin_datatype, int target_rank,
	       MPI_Aint target_disp, MPI_Count target_count,
	       MPI_Datatype target_datatype, MPI_Win win, MPI_Request *request);
int MPI_Raccumulate_c(const void *origin_addr, MPI_Count origin_count,
		      MPI_Datatype origin_datatype, int target_rank,
		      MPI_Aint target_disp, MPI_Count target_count,
		      MPI_Datatype target_datatype, MPI_Op op, MPI_Win win,
		      MPI_Request *request);
int MPI_Rget_accumulate_c(const void *origin_addr, MPI_Count origin_count,
			  MPI_Datatype origin_datatype, void *result_addr,
			  MPI_Count result_count,
			  MPI_Datatype result_datatype, int target_rank,
			  MPI_Aint target_disp, MPI_Count target_count,
			  MPI_Datatype target_datatype, MPI_Op op,
			  MPI_Win win, MPI_Request *request);
int MPI_Win_create_c(void *base, MPI_Aint size, MPI_Aint disp_unit,
		     MPI_Info info, MPI_Comm comm, MPI_Win *win);
int MPI_Win_allocate_c(MPI_Aint size, MPI_Aint disp_unit, MPI_Info info,
		       MPI_Comm comm, void *baseptr, MPI_Win *win);
int MPI_Win_allocate_shared_c(MPI_Aint size, MPI_Aint disp_unit,
			      MPI_Info info, MPI_Comm comm, void *baseptr,
			      MPI_Win *win);
int MPI_Win_shared_query_c(MPI_Win win, int rank, MPI_Aint *size,
			   MPI_Aint *disp_unit, void *baseptr);
int MPI_Op_create_c(MPI_User_function_c *user_fn, int commute, MPI_Op *op);
int MPI_Get_count_c(const MPI_Status *status, MPI_Datatype datatype,
		    MPI_Count *count);
int MPI_Get_elements_c(const MPI_Status *status, MPI_Datatype datatype,
		       MPI_Count *count);
int MPI_Status_set_elements_c(MPI_Status *status, MPI_Datatype datatype,
			      MPI_Count count);
int MPI_Type_size_c(MPI_Datatype datatype, MPI_Count *size);
int MPI_Type_get_extent_c(MPI_Datatype datatype, MPI_Count *lb,
			  MPI_Count *extent);
int MPI_Type_get_true_extent_c(MPI_Datatype datatype, MPI_Count *true_lb,
			       MPI_Count *true_extent);
int MPI_Type_contiguous_c(MPI_Count count, MPI_Datatype oldtype,
			  MPI_Datatype *newtype);
int MPI_Type_vector_c(MPI_Count count, MPI_Count blocklength,
		      MPI_Count stride, MPI_Datatype oldtype,
		      MPI_Datatype *newtype);
int MPI_Type_create_hvector_c(MPI_Count count, MPI_Count blocklength,
			      MPI_Count stride, MPI_Datatype oldtype,
			      MPI_Datatype *newtype);
int MPI_Type_indexed_c(MPI_Count count,
		       const MPI_Count array_of_blocklengths[],
		       const MPI_Count array_of_displacements[],
		       MPI_Datatype oldtype, MPI_Datatype *newtype);
int MPI_Type_create_hindexed_c(MPI_Count count,
			       const MPI_Count array_of_blocklengths[],
			       const MPI_Count array_of_displacements[],
			       MPI_Datatype oldtype, MPI_Datatype *newtype);
int MPI_Type_create_indexed_block_c(MPI_Count count, MPI_Count blocklength,
				    const MPI_Count array_of_displacements[],
				    MPI_Datatype oldtype,
				    MPI_Datatype *newtype);
int MPI_Type_create_hindexed_block_c(MPI_Count count, MPI_Count blocklength,
				     const MPI_Count array_of_displacements[],
				     MPI_Datatype oldtype,
				     MPI_Datatype *newtype);
int MPI_Type_create_struct_c(MPI_Count count,
			     const MPI_Count array_of_blocklengths[],
			     const MPI_Count array_of_displacements[],
			     const MPI_Datatype array_of_types[],
			     MPI_Datatype *newtype);
int MPI_Type_create_subarray_c(int ndims, const MPI_Count array_of_sizes[],
			       const MPI_Count array_of_subsizes[],
			       const MPI_Count array_of_starts[], int order,
			       MPI_Datatype oldtype, MPI_Datatype *newtype);
int MPI_Type_create_darray_c(int size, int rank, int ndims,
			     const MPI_Count array_of_gsizes[],
			     const int array_of_distribs[],
			     const int array_of_dargs[],
			     const int array_of_psizes[], int order,
			     MPI_Datatype oldtype, MPI_Datatype *newtype);
int MPI_Type_create_resized_c(MPI_Datatype oldtype, MPI_Count lb,
			      MPI_Count extent, MPI_Datatype *newtype);
int MPI_Type_get_envelope_c(MPI_Datatype datatype, MPI_Count *num_integers,
			    MPI_Count *num_addresses,
			    MPI_Count *num_large_counts,
			    MPI_Count *num_datatypes, int *combiner);
int MPI_Type_get_contents_c(MPI_Datatype datatype, MPI_Count max_integers,
			    MPI_Count max_addresses,
			    MPI_Count max_large_counts,
			    MPI_Count max_datatypes, int array_of_integers[],
			    MPI_Aint array_of_addresses[],
			    MPI_Count array_of_large_counts[],
			    MPI_Datatype array_of_datatypes[]);

/* ---- The tool information interface (MPI_T) ------------------------------ */
/*
 * MPI-3.1 chapter 14.3 and MPI-4.0's calls of chapter 15 (src/tool/):
 * control variables for libmsg's settings (MPICHAN_*), performance
 * variables for what it counts, categories, enumerations, one source
 * of timestamps; no events (MPI_T_event_get_num gives 0).  The calls
 * return MPI_T_ERR_* and call no error handler.
 */
struct libmsg_t_enum;
struct libmsg_t_cvar_handle;
struct libmsg_t_pvar_session;
struct libmsg_t_pvar_handle;
struct libmsg_t_event_registration;
struct libmsg_t_event_instance;
typedef struct libmsg_t_enum *MPI_T_enum;
typedef struct libmsg_t_cvar_handle *MPI_T_cvar_handle;
typedef struct libmsg_t_pvar_session *MPI_T_pvar_session;
typedef struct libmsg_t_pvar_handle *MPI_T_pvar_handle;
typedef struct libmsg_t_event_registration *MPI_T_event_registration;
typedef struct libmsg_t_event_instance *MPI_T_event_instance;

#define MPI_T_ENUM_NULL			((MPI_T_enum)0)
#define MPI_T_CVAR_HANDLE_NULL		((MPI_T_cvar_handle)0)
#define MPI_T_PVAR_SESSION_NULL		((MPI_T_pvar_session)0)
#define MPI_T_PVAR_HANDLE_NULL		((MPI_T_pvar_handle)0)
#define MPI_T_PVAR_ALL_HANDLES		((MPI_T_pvar_handle)-1)
#define MPI_T_EVENT_REGISTRATION_NULL	((MPI_T_event_registration)0)

#define MPI_T_VERBOSITY_USER_BASIC	1
#define MPI_T_VERBOSITY_USER_DETAIL	2
#define MPI_T_VERBOSITY_USER_ALL	3
#define MPI_T_VERBOSITY_TUNER_BASIC	4
#define MPI_T_VERBOSITY_TUNER_DETAIL	5
#define MPI_T_VERBOSITY_TUNER_ALL	6
#define MPI_T_VERBOSITY_MPIDEV_BASIC	7
#define MPI_T_VERBOSITY_MPIDEV_DETAIL	8
#define MPI_T_VERBOSITY_MPIDEV_ALL	9

#define MPI_T_BIND_NO_OBJECT		0
#define MPI_T_BIND_MPI_COMM		1
#define MPI_T_BIND_MPI_DATATYPE		2
#define MPI_T_BIND_MPI_ERRHANDLER	3
#define MPI_T_BIND_MPI_FILE		4
#define MPI_T_BIND_MPI_GROUP		5
#define MPI_T_BIND_MPI_OP		6
#define MPI_T_BIND_MPI_REQUEST		7
#define MPI_T_BIND_MPI_WIN		8
#define MPI_T_BIND_MPI_MESSAGE		9
#define MPI_T_BIND_MPI_INFO		10
#define MPI_T_BIND_MPI_SESSION		11

#define MPI_T_SCOPE_CONSTANT		0
#define MPI_T_SCOPE_READONLY		1
#define MPI_T_SCOPE_LOCAL		2
#define MPI_T_SCOPE_GROUP		3
#define MPI_T_SCOPE_GROUP_EQ		4
#define MPI_T_SCOPE_ALL			5
#define MPI_T_SCOPE_ALL_EQ		6

#define MPI_T_PVAR_CLASS_STATE		0
#define MPI_T_PVAR_CLASS_LEVEL		1
#define MPI_T_PVAR_CLASS_SIZE		2
#define MPI_T_PVAR_CLASS_PERCENTAGE	3
#define MPI_T_PVAR_CLASS_HIGHWATERMARK	4
#define MPI_T_PVAR_CLASS_LOWWATERMARK	5
#define MPI_T_PVAR_CLASS_COUNTER	6
#define MPI_T_PVAR_CLASS_AGGREGATE	7
#define MPI_T_PVAR_CLASS_TIMER		8
#define MPI_T_PVAR_CLASS_GENERIC	9

/* Error classes of the MPI_T calls (below MPI_ERR_LASTCODE). */
#define MPI_T_ERR_MEMORY		76
#define MPI_T_ERR_NOT_INITIALIZED	77
#define MPI_T_ERR_CANNOT_INIT		78
#define MPI_T_ERR_INVALID_INDEX		79
#define MPI_T_ERR_INVALID_ITEM		80
#define MPI_T_ERR_INVALID_HANDLE	81
#define MPI_T_ERR_OUT_OF_HANDLES	82
#define MPI_T_ERR_OUT_OF_SESSIONS	83
#define MPI_T_ERR_INVALID_SESSION	84
#define MPI_T_ERR_CVAR_SET_NOT_NOW	85
#define MPI_T_ERR_CVAR_SET_NEVER	86
#define MPI_T_ERR_PVAR_NO_STARTSTOP	87
#define MPI_T_ERR_PVAR_NO_WRITE		88
#define MPI_T_ERR_PVAR_NO_ATOMIC	89
#define MPI_T_ERR_INVALID_NAME		90
#define MPI_T_ERR_INVALID		91
#define MPI_T_ERR_NOT_SUPPORTED		92
#define MPI_T_ERR_NOT_ACCESSIBLE	93

typedef enum MPI_T_cb_safety {
	MPI_T_CB_REQUIRE_NONE,
	MPI_T_CB_REQUIRE_MPI_RESTRICTED,
	MPI_T_CB_REQUIRE_THREAD_SAFE,
	MPI_T_CB_REQUIRE_ASYNC_SIGNAL_SAFE
} MPI_T_cb_safety;

typedef enum MPI_T_source_order {
	MPI_T_SOURCE_ORDERED,
	MPI_T_SOURCE_UNORDERED
} MPI_T_source_order;

typedef void (MPI_T_event_cb_function)(MPI_T_event_instance event_instance,
				       MPI_T_event_registration event_registration,
				       MPI_T_cb_safety cb_safety,
				       void *user_data);
typedef void (MPI_T_event_free_cb_function)(
	MPI_T_event_registration event_registration,
	MPI_T_cb_safety cb_safety, void *user_data);
typedef void (MPI_T_event_dropped_cb_function)(MPI_Count count,
	MPI_T_event_registration event_registration, int source_index,
	MPI_T_cb_safety cb_safety, void *user_data);

int MPI_T_init_thread(int required, int *provided);
int MPI_T_finalize(void);
int MPI_T_enum_get_info(MPI_T_enum enumtype, int *num, char *name,
			int *name_len);
int MPI_T_enum_get_item(MPI_T_enum enumtype, int index, int *value,
			char *name, int *name_len);
int MPI_T_cvar_get_num(int *num_cvar);
int MPI_T_cvar_get_info(int cvar_index, char *name, int *name_len,
			int *verbosity, MPI_Datatype *datatype,
			MPI_T_enum *enumtype, char *desc, int *desc_len,
			int *bind, int *scope);
int MPI_T_cvar_get_index(const char *name, int *cvar_index);
int MPI_T_cvar_handle_alloc(int cvar_index, void *obj_handle,
			    MPI_T_cvar_handle *handle, int *count);
int MPI_T_cvar_handle_free(MPI_T_cvar_handle *handle);
int MPI_T_cvar_read(MPI_T_cvar_handle handle, void *buf);
int MPI_T_cvar_write(MPI_T_cvar_handle handle, const void *buf);
int MPI_T_pvar_get_num(int *num_pvar);
int MPI_T_pvar_get_info(int pvar_index, char *name, int *name_len,
			int *verbosity, int *var_class, MPI_Datatype *datatype,
			MPI_T_enum *enumtype, char *desc, int *desc_len,
			int *bind, int *readonly, int *continuous,
			int *atomic);
int MPI_T_pvar_get_index(const char *name, int var_class, int *pvar_index);
int MPI_T_pvar_session_create(MPI_T_pvar_session *session);
int MPI_T_pvar_session_free(MPI_T_pvar_session *session);
int MPI_T_pvar_handle_alloc(MPI_T_pvar_session session, int pvar_index,
			    void *obj_handle, MPI_T_pvar_handle *handle,
			    int *count);
int MPI_T_pvar_handle_free(MPI_T_pvar_session session,
			   MPI_T_pvar_handle *handle);
int MPI_T_pvar_start(MPI_T_pvar_session session, MPI_T_pvar_handle handle);
int MPI_T_pvar_stop(MPI_T_pvar_session session, MPI_T_pvar_handle handle);
int MPI_T_pvar_read(MPI_T_pvar_session session, MPI_T_pvar_handle handle,
		    void *buf);
int MPI_T_pvar_write(MPI_T_pvar_session session, MPI_T_pvar_handle handle,
		     const void *buf);
int MPI_T_pvar_reset(MPI_T_pvar_session session, MPI_T_pvar_handle handle);
int MPI_T_pvar_readreset(MPI_T_pvar_session session, MPI_T_pvar_handle handle,
			 void *buf);
int MPI_T_category_get_num(int *num_cat);
int MPI_T_category_get_info(int cat_index, char *name, int *name_len,
			    char *desc, int *desc_len, int *num_cvars,
			    int *num_pvars, int *num_categories);
int MPI_T_category_get_num_events(int cat_index, int *num_events);
int MPI_T_category_get_index(const char *name, int *cat_index);
int MPI_T_category_get_cvars(int cat_index, int len, int indices[]);
int MPI_T_category_get_pvars(int cat_index, int len, int indices[]);
int MPI_T_category_get_events(int cat_index, int len, int indices[]);
int MPI_T_category_get_categories(int cat_index, int len, int indices[]);
int MPI_T_category_changed(int *update_number);
int MPI_T_source_get_num(int *num_sources);
int MPI_T_source_get_info(int source_index, char *name, int *name_len,
			  char *desc, int *desc_len,
			  MPI_T_source_order *ordering,
			  MPI_Count *ticks_per_second, MPI_Count *max_ticks,
			  MPI_Info *info);
int MPI_T_source_get_timestamp(int source_index, MPI_Count *timestamp);
int MPI_T_event_get_num(int *num_events);
int MPI_T_event_get_info(int event_index, char *name, int *name_len,
			 int *verbosity, MPI_Datatype array_of_datatypes[],
			 MPI_Aint array_of_displacements[], int *num_elements,
			 MPI_T_enum *enumtype, MPI_Info *info, char *desc,
			 int *desc_len, int *bind);
int MPI_T_event_get_index(const char *name, int *event_index);
int MPI_T_event_handle_alloc(int event_index, void *obj_handle, MPI_Info info,
			     MPI_T_event_registration *event_registration);
int MPI_T_event_handle_set_info(MPI_T_event_registration event_registration,
				MPI_Info info);
int MPI_T_event_handle_get_info(MPI_T_event_registration event_registration,
				MPI_Info *info_used);
int MPI_T_event_register_callback(MPI_T_event_registration event_registration,
				  MPI_T_cb_safety cb_safety, MPI_Info info,
				  void *user_data,
				  MPI_T_event_cb_function *event_cb_function);
int MPI_T_event_callback_set_info(MPI_T_event_registration event_registration,
				  MPI_T_cb_safety cb_safety, MPI_Info info);
int MPI_T_event_callback_get_info(MPI_T_event_registration event_registration,
				  MPI_T_cb_safety cb_safety,
				  MPI_Info *info_used);
int MPI_T_event_handle_free(MPI_T_event_registration event_registration,
			    void *user_data,
			    MPI_T_event_free_cb_function *free_cb_function);
int MPI_T_event_set_dropped_handler(
	MPI_T_event_registration event_registration,
	MPI_T_event_dropped_cb_function *dropped_cb_function);
int MPI_T_event_read(MPI_T_event_instance event_instance, int element_index,
		     void *buffer);
int MPI_T_event_copy(MPI_T_event_instance event_instance, void *buffer);
int MPI_T_event_get_timestamp(MPI_T_event_instance event_instance,
			      MPI_Count *event_timestamp);
int MPI_T_event_get_source(MPI_T_event_instance event_instance,
			   int *source_index);

/* ---- Fortran ------------------------------------------------------------ */
/*
 * Handles and statuses of the Fortran bindings (mpif.h, the mpi and
 * mpi_f08 modules: src/fortran/, libmsg/gen/fortran).  A Fortran handle
 * is an index into a table of the C handles: 0 is the null handle of
 * every kind, the predefined handles have fixed indices.  A Fortran
 * status is MPI_Status's six ints; an mpi_f08 TYPE(MPI_Status) the
 * same.
 */
typedef int MPI_Fint;

typedef struct MPI_F08_status {
	MPI_Fint MPI_SOURCE;
	MPI_Fint MPI_TAG;
	MPI_Fint MPI_ERROR;
	MPI_Fint libmsg_internal[3];
} MPI_F08_status;

/* Fortran's MPI_STATUS_IGNORE and MPI_STATUSES_IGNORE (common blocks). */
extern MPI_Fint libmsg_status_ignore_[6], libmsg_statuses_ignore_[6];
#define MPI_F_STATUS_IGNORE	((MPI_Fint *)libmsg_status_ignore_)
#define MPI_F_STATUSES_IGNORE	((MPI_Fint *)libmsg_statuses_ignore_)
#define MPI_F08_STATUS_IGNORE	((MPI_F08_status *)libmsg_status_ignore_)
#define MPI_F08_STATUSES_IGNORE	((MPI_F08_status *)libmsg_statuses_ignore_)

MPI_Comm MPI_Comm_f2c(MPI_Fint comm);
MPI_Fint MPI_Comm_c2f(MPI_Comm comm);
MPI_Datatype MPI_Type_f2c(MPI_Fint datatype);
MPI_Fint MPI_Type_c2f(MPI_Datatype datatype);
MPI_Group MPI_Group_f2c(MPI_Fint group);
MPI_Fint MPI_Group_c2f(MPI_Group group);
MPI_Request MPI_Request_f2c(MPI_Fint request);
MPI_Fint MPI_Request_c2f(MPI_Request request);
MPI_Op MPI_Op_f2c(MPI_Fint op);
MPI_Fint MPI_Op_c2f(MPI_Op op);
MPI_Info MPI_Info_f2c(MPI_Fint info);
MPI_Fint MPI_Info_c2f(MPI_Info info);
MPI_Errhandler MPI_Errhandler_f2c(MPI_Fint errhandler);
MPI_Fint MPI_Errhandler_c2f(MPI_Errhandler errhandler);
MPI_Win MPI_Win_f2c(MPI_Fint win);
MPI_Fint MPI_Win_c2f(MPI_Win win);
MPI_Message MPI_Message_f2c(MPI_Fint message);
MPI_Fint MPI_Message_c2f(MPI_Message message);
MPI_Session MPI_Session_f2c(MPI_Fint session);
MPI_Fint MPI_Session_c2f(MPI_Session session);
int MPI_Status_f2c(const MPI_Fint *f_status, MPI_Status *c_status);
int MPI_Status_c2f(const MPI_Status *c_status, MPI_Fint *f_status);
int MPI_Status_f082c(const MPI_F08_status *f08_status, MPI_Status *c_status);
int MPI_Status_c2f08(const MPI_Status *c_status, MPI_F08_status *f08_status);
int MPI_Status_f082f(const MPI_F08_status *f08_status, MPI_Fint *f_status);
int MPI_Status_f2f08(const MPI_Fint *f_status, MPI_F08_status *f08_status);

/*
 * The profiling interface: every MPI_ function above is also PMPI_,
 * with the same arguments (generated from this file by libmsg/gen/pmpi
 * when libmsg is built).
 */
#include "mpi_pmpi.h"

#ifdef __cplusplus
}
#endif

#endif /* LIBMSG_MPI_H */
