package parser

import "golang.org/x/sys/cpu"

// hasVectorScan reports whether vectorCandidates can run here: it needs
// AVX2 (VPSHUFB over 32 bytes) and POPCNT (which a virtual machine may
// hide even where AVX2 is shown).
func hasVectorScan() bool { return cpu.X86.HasAVX2 && cpu.X86.HasPOPCNT }

// vectorCandidates is pivotSet.candidates' vector kernel
// (pivotset_amd64.s): it reads b 32 bytes at a time while out has room
// for 32 more offsets and 33 bytes are left, and returns how many it
// wrote, how far it read (a multiple of 32; the tail is the caller's) and
// the newlines it read.
//
//go:noescape
func vectorCandidates(b []byte, tables *[128]byte, out []uint32) (n, scanned, newlines int)
