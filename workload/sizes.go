package workload

// WorkerSizer is a Generator whose workers each allocate client memory in
// proportion to its flags (a YCSB worker holds fieldcount buffers of
// fieldlength bytes). The runner multiplies it by the number of workers
// and refuses, before any worker is made, a run that would not fit.
type WorkerSizer interface {
	Generator
	// WorkerBytes returns the client memory one worker allocates for the
	// parsed flags, and the flags that make it so, as the user gave them
	// ("fieldcount 10 × fieldlength 100000000"), for the refusal's
	// message. It is called after Validate.
	WorkerBytes() (int64, string)
}
