package finalizers

// onlyRemovalRefused reports a finalizer whose only blockers are fail-closed admission webhooks
// that refuse the UPDATE removing it, while none of its candidate removers is installed. Such a
// webhook holds the finalizer only while something would make that UPDATE: with no remover
// installed, nothing would, even if the webhook answered, and a reinstalled product brings its
// webhook's backend back with it. The finalizer's verdict is then its remover's absence; the
// webhook stays named, as a blocker and as what refuses the removal by hand (the strip's
// rejectedBy), and deleting its leftover configuration stays the step before the strip.
func onlyRemovalRefused(f Finalizer) bool {
	if len(f.Blockers) == 0 || len(f.Controllers) == 0 {
		return false
	}
	for _, c := range f.Controllers {
		if c.Found {
			return false
		}
	}
	for _, b := range f.Blockers {
		if b.Code != ReasonWebhookRejectsUpdate {
			return false
		}
	}
	return true
}
