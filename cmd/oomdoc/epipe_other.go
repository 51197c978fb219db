//go:build !unix

package main

import "os"

// noSIGPIPE returns f: outside Unix a closed pipe is a write error, never
// a signal.
func noSIGPIPE(f *os.File) *os.File { return f }
