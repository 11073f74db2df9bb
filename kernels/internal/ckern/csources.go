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
// kernels/c sha256: f6a4ca4874c2e6b3b7648ef7c7ad83cbe0878ee0643de691b888af9d2c91f1b9
