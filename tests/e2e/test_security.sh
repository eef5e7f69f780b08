#!/bin/bash
# The attacks of a task's user or another local user on root's msprof
# (docs/security.md), each replayed against a root-only victim, with
# profiling checked to work afterwards:
#   security/output.sh  links, FIFOs, hard links and dirs planted in the
#                       staging and output directories; PROF_ and --output
#                       swapped mid-session; bad --output; crashes, full disk
#   security/lock.sh    the controller lock planted, held or linked
#   security/socket.sh  stuck, trickling, flooding and foreign socket clients;
#                       a link planted at the socket's name
#   security/ns.sh      a task in a user and mount namespace of its own:
#                       mounts and renames in its /tmp and the stage, a fake
#                       agent, sparse files
#   security/env.sh     the task's environment, comm and library names:
#                       a glob for its device node, control characters
#   security/elf.sh     crafted ELF files mapped PROT_EXEC, whose symbol
#                       tables claim gigabytes: root's memory stays put
#   security/tools.sh   the developer tools' paths: links and other users'
#                       directories on the way to the kernel cache
# Each part is a script of its own (its own user, task and work directory);
# this one fails if any part does.
cd "$(dirname "$0")/../.." || exit 1
rc=0
for part in output lock socket ns env elf tools; do
	echo "-- security/$part.sh"
	bash "tests/e2e/security/$part.sh" || rc=1
done
exit "$rc"
