package ckern

// The shims here compile the C of kernels/c, outside this folder, and the go
// command keys a package's build on the files in its own folder only. The
// line below, a hash of kernels/c, changes with every edit there and so
// rebuilds every shim of the package: TestShimsTrackSources
// (kernels/sources_test.go) fails until it is current, and
//
//	go test ./kernels -run TestShimsTrackSources -update
//
// rewrites it.
//
// kernels/c sha256: 769546c97def5b9dd726014fe212514bb4b8728bda9afcdbba5e11bd3d5d488a
