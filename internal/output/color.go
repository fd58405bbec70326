package output

// Palette colours text for the text printer; its zero value (colour off) returns text unchanged.
type Palette struct{ On bool }

func (p Palette) wrap(code, s string) string {
	if !p.On || s == "" {
		return s
	}
	return "\x1b[" + code + "m" + s + "\x1b[0m"
}

// Bad marks a failure or a blocker (red).
func (p Palette) Bad(s string) string { return p.wrap("31", s) }

// Warn marks a waiter or a warning (yellow).
func (p Palette) Warn(s string) string { return p.wrap("33", s) }

// Good marks a healthy state (green).
func (p Palette) Good(s string) string { return p.wrap("32", s) }

// Bold marks names and headings.
func (p Palette) Bold(s string) string { return p.wrap("1", s) }

// Faint marks secondary detail.
func (p Palette) Faint(s string) string { return p.wrap("2", s) }
