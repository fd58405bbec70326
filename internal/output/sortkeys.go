package output

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
)

// sortKeys rewrites the JSON that json.Marshal wrote with the keys of every object sorted, as
// decoding it into maps (numbers kept as written) and marshalling it again would, but reading
// the bytes once instead of building a tree of maps: strings made only of printable ASCII that
// needs no escape, numbers and literals are copied as written; any other string is decoded and
// marshalled again, which is what the round trip does to it (a \u00e9 a MarshalJSON wrote
// becomes é). An object that names a key twice keeps its last value, as decoding does.
func sortKeys(src []byte) ([]byte, error) {
	s := keySorter{src: src, out: make([]byte, 0, len(src))}
	if err := s.value(); err != nil {
		return nil, err
	}
	if s.skipSpace(); s.i != len(s.src) {
		return nil, fmt.Errorf("re-reading json: data after the value at offset %d", s.i)
	}
	return s.out, nil
}

type keySorter struct {
	src []byte
	i   int
	out []byte
	// members holds the members of the objects being read, innermost last; scratch is where an
	// object's members are moved to be written back in order.
	members []member
	scratch []byte
}

// member is one key and its value, as they are written in out: key is decoded, for sorting;
// at..end is the key, colon and value in out.
type member struct {
	key     []byte
	at, end int
}

var errSyntax = errors.New("re-reading json: invalid syntax")

func (s *keySorter) skipSpace() {
	for s.i < len(s.src) {
		switch s.src[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

// value writes the value at s.i to s.out.
func (s *keySorter) value() error {
	s.skipSpace()
	if s.i >= len(s.src) {
		return errSyntax
	}
	switch c := s.src[s.i]; {
	case c == '{':
		return s.object()
	case c == '[':
		return s.array()
	case c == '"':
		raw, _, err := s.str()
		s.out = append(s.out, raw...)
		return err
	default:
		return s.scalar()
	}
}

// object writes the object at s.i with its keys in order: its members are written to out as
// they come (their own objects sorted first), then moved into that order.
func (s *keySorter) object() error {
	s.i++ // {
	begin, first := len(s.out), len(s.members)
	if s.open('{', '}') {
		return nil
	}
	for {
		s.skipSpace()
		if s.i >= len(s.src) || s.src[s.i] != '"' {
			return errSyntax
		}
		at := len(s.out)
		raw, key, err := s.str()
		if err != nil {
			return err
		}
		if s.skipSpace(); s.i >= len(s.src) || s.src[s.i] != ':' {
			return errSyntax
		}
		s.i++
		s.out = append(append(s.out, raw...), ':')
		if err := s.value(); err != nil {
			return err
		}
		s.members = append(s.members, member{key: key, at: at, end: len(s.out)})
		done, err := s.next('}')
		if err != nil {
			return err
		}
		if done {
			break
		}
	}
	members := s.members[first:]
	// The last value of a repeated key wins, as in a map; then keys in order.
	slices.SortStableFunc(members, func(a, b member) int { return bytes.Compare(a.key, b.key) })
	s.scratch = append(s.scratch[:0], s.out[begin+1:]...)
	s.out = s.out[:begin+1]
	for j, m := range members {
		if j+1 < len(members) && bytes.Equal(members[j+1].key, m.key) {
			continue
		}
		if len(s.out) > begin+1 {
			s.out = append(s.out, ',')
		}
		s.out = append(s.out, s.scratch[m.at-begin-1:m.end-begin-1]...)
	}
	s.out = append(s.out, '}')
	s.members = s.members[:first]
	return nil
}

func (s *keySorter) array() error {
	s.i++ // [
	if s.open('[', ']') {
		return nil
	}
	for {
		if err := s.value(); err != nil {
			return err
		}
		done, err := s.next(']')
		switch {
		case err != nil:
			return err
		case done:
			s.out = append(s.out, ']')
			return nil
		}
		s.out = append(s.out, ',')
	}
}

// open writes the opening bracket of an object or array (read already) and reports whether it
// is empty, in which case its closing bracket is read and written too.
func (s *keySorter) open(opening, closing byte) bool {
	s.out = append(s.out, opening)
	s.skipSpace()
	if s.i < len(s.src) && s.src[s.i] == closing {
		s.i++
		s.out = append(s.out, closing)
		return true
	}
	return false
}

// next reads what follows a member or element: the closing bracket (done) or a comma.
func (s *keySorter) next(closing byte) (done bool, err error) {
	if s.skipSpace(); s.i >= len(s.src) {
		return false, errSyntax
	}
	c := s.src[s.i]
	s.i++
	switch c {
	case closing:
		return true, nil
	case ',':
		return false, nil
	}
	return false, errSyntax
}

// str reads the string at s.i and returns it as json.Marshal writes it, and decoded.
func (s *keySorter) str() (raw, decoded []byte, err error) {
	start := s.i
	s.i++ // "
	plain := true
	for s.i < len(s.src) {
		c := s.src[s.i]
		switch {
		case c == '"':
			s.i++
			lit := s.src[start:s.i]
			if plain {
				return lit, lit[1 : len(lit)-1], nil
			}
			var text string
			if err := json.Unmarshal(lit, &text); err != nil {
				return nil, nil, fmt.Errorf("re-reading json: %w", err)
			}
			raw, err := json.Marshal(text)
			return raw, []byte(text), err
		case c == '\\':
			plain = false
			s.i += 2
			continue
		case c < 0x20 || c >= 0x7f || c == '<' || c == '>' || c == '&':
			plain = false
		}
		s.i++
	}
	return nil, nil, errSyntax
}

// scalar copies a number or literal as written; json.Number marshals as written too. What it
// copies is checked by decoding it.
func (s *keySorter) scalar() error {
	start := s.i
	for s.i < len(s.src) && !bytes.ContainsRune([]byte(",}] \t\n\r"), rune(s.src[s.i])) {
		s.i++
	}
	lit := s.src[start:s.i]
	switch string(lit) {
	case "true", "false", "null":
	default:
		if !json.Valid(lit) || lit[0] == '"' {
			return errSyntax
		}
	}
	s.out = append(s.out, lit...)
	return nil
}
