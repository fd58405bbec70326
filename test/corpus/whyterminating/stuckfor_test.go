package whyterminating_test

// notDeleting checks that ref is not reported as a deletion on course: its running remover has
// not finalized it for as long as the report says (what, "a model … for half an hour").
func (d *diagnosis) notDeleting(ref, what string) {
	d.t.Helper()
	if d.object(ref).Deleting {
		d.t.Errorf("%s, not finalized by its running remover, reported as a deletion on course", what)
	}
}
