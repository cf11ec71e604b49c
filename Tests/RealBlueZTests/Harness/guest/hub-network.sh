#!/bin/bash
# In the guest (Debian's kernel, which has the netem scheduler this machine's kernel lacks): the hub's
# network-namespace test from CareHubTests, with `tc netem` on every bridge's link.
#
#   hub-network.sh TEST-BUNDLE NETEM-OPTIONS...
#
# Loads veth and sch_netem from the unpacked kernel's module tree, then runs that one test of TEST-BUNDLE (the built
# CareBridgePackageTests.xctest) with CAREBRIDGE_HUB_NETEM set to the options and CI=true, so a missing tool fails
# it instead of skipping it. PostgreSQL, the hub and the bridges are the host's binaries; their files live on the
# guest's tmpfs ($TMPDIR). The test's output is $CAREBRIDGE_OUT/hub-network.log, its xUnit report
# $CAREBRIDGE_OUT/hub-network.xml, and its exit status ours.
set -u
bundle="$1"
shift
export CAREBRIDGE_HUB_NETEM="$*" CI=true NO_COLOR=1
/run/modprobe -a veth sch_netem || { echo "hub-network: cannot load veth and sch_netem"; exit 1; }
echo "hub-network: netem $CAREBRIDGE_HUB_NETEM, test bundle $bundle"
"$bundle" --testing-library swift-testing --filter threeBridgesInTheirOwnNetworks \
    --xunit-output "$CAREBRIDGE_OUT/hub-network.xml" >"$CAREBRIDGE_OUT/hub-network.log" 2>&1
status=$?
echo "hub-network: the test exited $status"
exit $status
