package fleet

// SetBeforeDrop makes f run between Drop's census of the tenant schemas
// and their drop, until the returned function restores the default.
func SetBeforeDrop(f func()) (restore func()) {
	old := beforeDrop
	beforeDrop = f
	return func() { beforeDrop = old }
}
