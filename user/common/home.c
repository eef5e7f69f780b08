// SPDX-License-Identifier: MIT
#include <pwd.h>
#include <stdlib.h>
#include <unistd.h>

#include "home.h"

const char *home_dir(void)
{
	const char *home = getenv("HOME");
	struct passwd *pw;

	if (home && *home)
		return home;
	pw = getpwuid(getuid());
	return pw && pw->pw_dir[0] ? pw->pw_dir : NULL;
}
