// SPDX-License-Identifier: MIT
/*
 * The tool information interface (MPI-3.1 14.3, and MPI-4.0's calls of
 * chapter 15 but events): a layer above all others, which reads what
 * they keep.  This file: setting up and finishing, enumerations,
 * categories, the clock source and the (absent) events; the variables
 * are in cvar.c (control) and pvar.c (performance).
 *
 * Categories: mpichan, whose subcategories hold every variable, each in
 * one: the transport, point-to-point, waiting, collectives, and the
 * module's counters.  Sources: one, the clock of MPI_Wtime
 * (CLOCK_MONOTONIC, in ns).  Events: none.
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tool/tool.h"

pthread_mutex_t t_lock = PTHREAD_MUTEX_INITIALIZER;
int t_inits;
static int t_built;

static const struct {
	const char *name, *desc;
} cats[T_NCATS] = {
	[C_ROOT] = { "mpichan", "libmsg, the MPI library of mpichan" },
	[C_TRANSPORT] = { "mpichan_transport",
		"How messages travel: the transport, eager and rendezvous paths" },
	[C_P2P] = { "mpichan_p2p",
		"Point-to-point: unexpected messages, pulls, non-contiguous sends" },
	[C_WAIT] = { "mpichan_wait", "How blocked calls wait: spinning, sleeping" },
	[C_COLL] = { "mpichan_coll", "Collectives: the algorithm each one runs" },
	[C_MODULE] = { "mpichan_module",
		"The kernel module's own counters (debugfs)" },
};

void t_str_out(char *buf, int *len, const char *s)
{
	int n = (int)strlen(s);

	if (!len)
		return;
	if (buf && *len > 0) {
		if (n > *len - 1)
			n = *len - 1;
		memcpy(buf, s, (size_t)n);
		buf[n] = 0;
	}
	*len = n + 1;
}

/* ---- Setup ----------------------------------------------------------- */

int MPI_T_init_thread(int required, int *provided)
{
	pthread_mutex_lock(&t_lock);
	if (!t_built) {
		t_cvars_build();
		t_pvars_build();
		t_built = 1;
	}
	t_inits++;
	pthread_mutex_unlock(&t_lock);
	if (provided)
		*provided = required < MPI_THREAD_SINGLE ? MPI_THREAD_SINGLE :
			required > MPI_THREAD_MULTIPLE ? MPI_THREAD_MULTIPLE :
			required;
	return MPI_SUCCESS;
}

/* The last MPI_T_finalize frees every handle and session. */
int MPI_T_finalize(void)
{
	T_ENTER();
	if (--t_inits == 0) {
		t_cvar_handles_free();
		t_sessions_free();
	}
	T_RETURN(MPI_SUCCESS);
}

/* ---- Enumerations ---------------------------------------------------- */

static struct libmsg_t_enum *enum_ok(MPI_T_enum e)
{
	if (e < t_enums || e >= t_enums + T_NENUMS)
		return NULL;
	return e;
}

int MPI_T_enum_get_info(MPI_T_enum enumtype, int *num, char *name,
			int *name_len)
{
	T_ENTER();
	if (!enum_ok(enumtype))
		T_RETURN(MPI_T_ERR_INVALID_HANDLE);
	if (num)
		*num = enumtype->n;
	t_str_out(name, name_len, enumtype->name);
	T_RETURN(MPI_SUCCESS);
}

int MPI_T_enum_get_item(MPI_T_enum enumtype, int index, int *value,
			char *name, int *name_len)
{
	T_ENTER();
	if (!enum_ok(enumtype))
		T_RETURN(MPI_T_ERR_INVALID_HANDLE);
	if (index < 0 || index >= enumtype->n)
		T_RETURN(MPI_T_ERR_INVALID_ITEM);
	if (value)
		*value = enumtype->values[index];
	t_str_out(name, name_len, enumtype->items[index]);
	T_RETURN(MPI_SUCCESS);
}


/* ---- Categories ------------------------------------------------------ */

int MPI_T_category_get_num(int *num_cat)
{
	T_ENTER();
	if (!num_cat)
		T_RETURN(MPI_T_ERR_INVALID);
	*num_cat = T_NCATS;
	T_RETURN(MPI_SUCCESS);
}

/* Members of category cat: cvars (kind 0), pvars (1), categories (2). */
static int members(int cat, int kind, int len, int *indices)
{
	int i, n = 0;

	if (kind == 0) {
		for (i = 0; i < t_ncvars; i++)
			if (t_cvars[i].cat == cat && n++ < len && indices)
				indices[n - 1] = i;
	} else if (kind == 1) {
		for (i = 0; i < t_npvars; i++)
			if (t_pvars[i].cat == cat && n++ < len && indices)
				indices[n - 1] = i;
	} else if (cat == C_ROOT) {
		for (i = 1; i < T_NCATS; i++)
			if (n++ < len && indices)
				indices[n - 1] = i;
	}
	return n;
}

int MPI_T_category_get_info(int cat_index, char *name, int *name_len,
			    char *desc, int *desc_len, int *num_cvars,
			    int *num_pvars, int *num_categories)
{
	T_ENTER();
	if (cat_index < 0 || cat_index >= T_NCATS)
		T_RETURN(MPI_T_ERR_INVALID_INDEX);
	t_str_out(name, name_len, cats[cat_index].name);
	t_str_out(desc, desc_len, cats[cat_index].desc);
	if (num_cvars)
		*num_cvars = members(cat_index, 0, 0, NULL);
	if (num_pvars)
		*num_pvars = members(cat_index, 1, 0, NULL);
	if (num_categories)
		*num_categories = members(cat_index, 2, 0, NULL);
	T_RETURN(MPI_SUCCESS);
}

int MPI_T_category_get_num_events(int cat_index, int *num_events)
{
	T_ENTER();
	if (cat_index < 0 || cat_index >= T_NCATS)
		T_RETURN(MPI_T_ERR_INVALID_INDEX);
	if (!num_events)
		T_RETURN(MPI_T_ERR_INVALID);
	*num_events = 0;
	T_RETURN(MPI_SUCCESS);
}

int MPI_T_category_get_index(const char *name, int *cat_index)
{
	int i;

	T_ENTER();
	if (!name || !cat_index)
		T_RETURN(MPI_T_ERR_INVALID);
	for (i = 0; i < T_NCATS; i++)
		if (!strcmp(cats[i].name, name)) {
			*cat_index = i;
			T_RETURN(MPI_SUCCESS);
		}
	T_RETURN(MPI_T_ERR_INVALID_NAME);
}

static int category_list(int cat_index, int kind, int len, int indices[])
{
	T_ENTER();
	if (cat_index < 0 || cat_index >= T_NCATS)
		T_RETURN(MPI_T_ERR_INVALID_INDEX);
	if (len < 0 || (len && !indices))
		T_RETURN(MPI_T_ERR_INVALID);
	members(cat_index, kind, len, indices);
	T_RETURN(MPI_SUCCESS);
}

int MPI_T_category_get_cvars(int cat_index, int len, int indices[])
{
	return category_list(cat_index, 0, len, indices);
}

int MPI_T_category_get_pvars(int cat_index, int len, int indices[])
{
	return category_list(cat_index, 1, len, indices);
}

int MPI_T_category_get_categories(int cat_index, int len, int indices[])
{
	return category_list(cat_index, 2, len, indices);
}

int MPI_T_category_get_events(int cat_index, int len, int indices[])
{
	return category_list(cat_index, 3, len, indices);
}

/* The variables and categories never change once made. */
int MPI_T_category_changed(int *update_number)
{
	T_ENTER();
	if (!update_number)
		T_RETURN(MPI_T_ERR_INVALID);
	*update_number = 0;
	T_RETURN(MPI_SUCCESS);
}

/* ---- Sources (MPI-4.0): MPI_Wtime's clock ------------------------------- */

int MPI_T_source_get_num(int *num_sources)
{
	T_ENTER();
	if (!num_sources)
		T_RETURN(MPI_T_ERR_INVALID);
	*num_sources = 1;
	T_RETURN(MPI_SUCCESS);
}

int MPI_T_source_get_info(int source_index, char *name, int *name_len,
			  char *desc, int *desc_len,
			  MPI_T_source_order *ordering,
			  MPI_Count *ticks_per_second, MPI_Count *max_ticks,
			  MPI_Info *info)
{
	T_ENTER();
	if (source_index != 0)
		T_RETURN(MPI_T_ERR_INVALID_INDEX);
	t_str_out(name, name_len, "mpichan_clock");
	t_str_out(desc, desc_len,
		"CLOCK_MONOTONIC in nanoseconds, MPI_Wtime's clock");
	if (ordering)
		*ordering = MPI_T_SOURCE_ORDERED;
	if (ticks_per_second)
		*ticks_per_second = 1000000000;
	if (max_ticks)
		*max_ticks = INT64_MAX;
	if (info)
		*info = MPI_INFO_NULL;
	T_RETURN(MPI_SUCCESS);
}

int MPI_T_source_get_timestamp(int source_index, MPI_Count *timestamp)
{
	T_ENTER();
	if (source_index != 0)
		T_RETURN(MPI_T_ERR_INVALID_INDEX);
	if (!timestamp)
		T_RETURN(MPI_T_ERR_INVALID);
	*timestamp = (MPI_Count)lm_now_ns();
	T_RETURN(MPI_SUCCESS);
}

/* ---- Events (MPI-4.0): there are none --------------------------------- */

int MPI_T_event_get_num(int *num_events)
{
	T_ENTER();
	if (!num_events)
		T_RETURN(MPI_T_ERR_INVALID);
	*num_events = 0;
	T_RETURN(MPI_SUCCESS);
}

int MPI_T_event_get_info(int event_index, char *name, int *name_len,
			 int *verbosity, MPI_Datatype array_of_datatypes[],
			 MPI_Aint array_of_displacements[], int *num_elements,
			 MPI_T_enum *enumtype, MPI_Info *info, char *desc,
			 int *desc_len, int *bind)
{
	(void)event_index; (void)name; (void)name_len; (void)verbosity;
	(void)array_of_datatypes; (void)array_of_displacements;
	(void)num_elements; (void)enumtype; (void)info; (void)desc;
	(void)desc_len; (void)bind;
	T_ENTER();
	T_RETURN(MPI_T_ERR_INVALID_INDEX);
}

int MPI_T_event_get_index(const char *name, int *event_index)
{
	(void)name;
	(void)event_index;
	T_ENTER();
	T_RETURN(MPI_T_ERR_INVALID_NAME);
}

int MPI_T_event_handle_alloc(int event_index, void *obj_handle, MPI_Info info,
			     MPI_T_event_registration *event_registration)
{
	(void)event_index; (void)obj_handle; (void)info;
	(void)event_registration;
	T_ENTER();
	T_RETURN(MPI_T_ERR_INVALID_INDEX);
}

/* No registration or instance exists: every handle is invalid. */
#define NO_EVENT_HANDLE() do {			\
	T_ENTER();				\
	T_RETURN(MPI_T_ERR_INVALID_HANDLE);	\
} while (0)

int MPI_T_event_handle_set_info(MPI_T_event_registration event_registration,
				MPI_Info info)
{
	(void)event_registration; (void)info;
	NO_EVENT_HANDLE();
}

int MPI_T_event_handle_get_info(MPI_T_event_registration event_registration,
				MPI_Info *info_used)
{
	(void)event_registration; (void)info_used;
	NO_EVENT_HANDLE();
}

int MPI_T_event_register_callback(MPI_T_event_registration event_registration,
				  MPI_T_cb_safety cb_safety, MPI_Info info,
				  void *user_data,
				  MPI_T_event_cb_function *event_cb_function)
{
	(void)event_registration; (void)cb_safety; (void)info;
	(void)user_data; (void)event_cb_function;
	NO_EVENT_HANDLE();
}

int MPI_T_event_callback_set_info(MPI_T_event_registration event_registration,
				  MPI_T_cb_safety cb_safety, MPI_Info info)
{
	(void)event_registration; (void)cb_safety; (void)info;
	NO_EVENT_HANDLE();
}

int MPI_T_event_callback_get_info(MPI_T_event_registration event_registration,
				  MPI_T_cb_safety cb_safety,
				  MPI_Info *info_used)
{
	(void)event_registration; (void)cb_safety; (void)info_used;
	NO_EVENT_HANDLE();
}

int MPI_T_event_handle_free(MPI_T_event_registration event_registration,
			    void *user_data,
			    MPI_T_event_free_cb_function *free_cb_function)
{
	(void)event_registration; (void)user_data; (void)free_cb_function;
	NO_EVENT_HANDLE();
}

int MPI_T_event_set_dropped_handler(
	MPI_T_event_registration event_registration,
	MPI_T_event_dropped_cb_function *dropped_cb_function)
{
	(void)event_registration; (void)dropped_cb_function;
	NO_EVENT_HANDLE();
}

int MPI_T_event_read(MPI_T_event_instance event_instance, int element_index,
		     void *buffer)
{
	(void)event_instance; (void)element_index; (void)buffer;
	NO_EVENT_HANDLE();
}

int MPI_T_event_copy(MPI_T_event_instance event_instance, void *buffer)
{
	(void)event_instance; (void)buffer;
	NO_EVENT_HANDLE();
}

int MPI_T_event_get_timestamp(MPI_T_event_instance event_instance,
			      MPI_Count *event_timestamp)
{
	(void)event_instance; (void)event_timestamp;
	NO_EVENT_HANDLE();
}

int MPI_T_event_get_source(MPI_T_event_instance event_instance,
			   int *source_index)
{
	(void)event_instance; (void)source_index;
	NO_EVENT_HANDLE();
}
