// Package parser reads crash logs — piped, named, pasted, gzipped, in a
// notebook — and returns every memory failure in them as an Event with
// exact figures (bytes converted from the printed text; nil where the log
// does not print them), its frames, its phase and the lines around it,
// plus the facts the rest of the log gives (Context).
//
// Detection has two tiers: the exact message families, one file each with
// every regexp beside a real example line, and a generic recogniser of
// memory-failure wording inside an error context (kind generic-oom). The
// block prefilter that lets a large log be read at close to grep's speed
// is derived from the families' own keywords. The named cues of the
// evidence vocabulary (cues.go) are what phase detection and the culprits
// of package rules both read.
package parser
