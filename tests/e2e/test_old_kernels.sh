#!/bin/bash
# The paths msprof takes on kernels before 5.15 (no attach cookies: a probed
# function is known by its address) and 6.6 (no uprobe_multi: a link per
# probe), taken on this kernel: the counts must stay exact.
export MSPROF_TEST_WITHOUT=cookies,uprobe_multi MSPROF_VERBOSE=1
source tests/e2e/test_exact_counts.sh
check "msprof said it had no cookies" grep -q "has no BPF attach cookies" "$WORK/msprof.log"
check "msprof said it had no uprobe_multi" grep -q "has no uprobe_multi links" "$WORK/msprof.log"
