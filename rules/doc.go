// Package rules names the culprit of an out-of-memory failure from the
// evidence in its log.
//
// Each culprit of spec/culprits.md is a declarative value (Culprit) in a
// file of its own: its documentation, the event kinds and phases it can
// never explain, the named signals its Assess function may fire, and what
// would decide it when the log does not. Assess looks at one failure with
// facts derived once (Facts: the device's capacity, what this process and
// others hold, the model, training or inference) and fires signals, each
// with the log line it rests on; it never scores.
//
// One engine (engine.go) scores every culprit the same way: the base rate
// of the culprit in the failure's prior context plus the fitted log-odds
// weights of the signals that fired (or, when none fired, the culprit's
// fitted silent shift), normalised by a softmax over the
// culprits and an explicit "unknown", then calibrated. A culprit without a
// supported evidence signal is a prior: capped at PriorCap, ranked below
// every finding with evidence. The weights are data (weights.tsv), fitted
// on the labelled logs by fit.go; the tests refit them and report the
// corpus score by cross-validation.
package rules
