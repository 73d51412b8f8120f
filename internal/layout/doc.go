// Package layout holds the test that keeps the module's rooms in order:
// a package stands above what it imports, so no package imports one that
// sits in a folder below it. A child folder is a kind of its parent and is
// built on it (cluster/clustertest on cluster, scenarios/results on
// scenarios); a parent that imports its own child reads upside down, and
// what both need belongs in a folder of its own (under internal/ when
// users need not see it). A command's main package is exempt: nothing
// imports it, so it stands above everything, its own library beside it
// included (cmd/simrun imports cmd/simrun/simrun).
//
// Beside it: a test file that starts a cluster on the real clock says why
// (TestRealClockTestsSayWhy), and a test that runs less under the race
// detector runs whole in a step of make test without it, named in one of
// the Makefile's lists (TestRaceListsAreKept).
//
// The package has no code; its tests read the import graph with go list,
// the test files' syntax and the Makefile.
package layout
