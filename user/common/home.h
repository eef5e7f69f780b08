/* SPDX-License-Identifier: MIT */
#ifndef MSPROF_HOME_H
#define MSPROF_HOME_H

/*
 * The home directory the process's dynamic_profiling_socket_<pid> files
 * live in, as a CANN runtime finds it: $HOME, else the password entry of
 * the real user; NULL when neither names one.  $HOME is taken as it is,
 * even where file capabilities raised the process: a controller given
 * CAP_BPF must look where the app it launches (which inherits HOME)
 * binds.  The string may be getpwuid()'s: use it before the next
 * password lookup.
 */
const char *home_dir(void);

#endif
