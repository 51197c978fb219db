package main

import "time"

// outputGrace is how long oomdoc keeps reading the command's output after
// the command itself has exited. A background process it started (a
// `tensorboard &`) may hold the output open for hours; after this grace
// period oomdoc stops waiting for it.
const outputGrace = 2 * time.Second
