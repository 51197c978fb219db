//go:build !linux

package main

// lowerPriority leaves the priority alone where threads cannot be niced.
func lowerPriority() {}
