package output

import (
	"io"
	"strings"
)

// Node is one line of a text tree and the lines under it. It is the shape of a text result
// only; structured outputs marshal the plugin's Result, not the tree. Text is one line: a
// newline in it is escaped like any control character, since names and messages in it may come
// from others; continuation lines the printer means go in More.
type Node struct {
	Text     string
	More     []string
	Children []*Node
}

// Add appends a child with the given text and returns it.
func (n *Node) Add(text string) *Node {
	c := &Node{Text: text}
	n.Children = append(n.Children, c)
	return c
}

// AddLines appends a child of several lines: first beside the connector, more aligned under it.
func (n *Node) AddLines(first string, more ...string) *Node {
	c := n.Add(first)
	c.More = more
	return c
}

// AddMessage appends a child for label followed by msg, a message from elsewhere that may span
// lines (errors joined by errors.Join, a controller's condition message, a build's output): its
// first line beside the connector, each further line on a line of its own, indented under it.
// A CRLF ends a line as a newline does; blank lines and trailing newlines are dropped. Every
// line is still escaped like any node text, so a carriage return, an ESC or a bidi override
// inside a line is shown as text; only the message's line breaks become lines, each indented
// past its item's text, so none can pass for a line at the margin (a verdict) or for the item's
// sibling. The structured outputs keep msg as it is.
func (n *Node) AddMessage(label, msg string) *Node {
	return n.AddStyledMessage(nil, label, msg)
}

// AddStyledMessage is AddMessage with style (a Palette colour, or nil) applied to each line on
// its own, so a colour never spans a line break.
func (n *Node) AddStyledMessage(style func(string) string, label, msg string) *Node {
	if style == nil {
		style = func(s string) string { return s }
	}
	lines := MessageLines(msg)
	first := label
	if len(lines) > 0 {
		first += lines[0]
		lines = lines[1:]
	}
	more := make([]string, len(lines))
	for i, l := range lines {
		more[i] = messageIndent + style(l)
	}
	return n.AddLines(style(first), more...)
}

// messageIndent sets the further lines of a message off from the first.
const messageIndent = "  "

// MessageLines splits msg into its lines: at each newline (a CRLF counts as one), without blank
// lines; none for a message that is blank.
func MessageLines(msg string) []string {
	var out []string
	for _, l := range strings.Split(msg, "\n") {
		l = strings.TrimSuffix(l, "\r")
		if strings.TrimSpace(l) != "" {
			out = append(out, l)
		}
	}
	return out
}

// Render draws the tree: the root's children at the left margin, descendants under box-drawing
// connectors, continuation lines (More) aligned under the connector. Every line is escaped
// (Sanitize, keeping p's colours) and the document guarded (Clean), so no text in the tree can
// forge a line, move the cursor or issue a GitHub workflow command.
func (n *Node) Render(w io.Writer, p Palette) error {
	var b strings.Builder
	if n.Text != "" || len(n.More) > 0 {
		n.writeLines(&b, "", "", p)
	}
	for _, c := range n.Children {
		c.render(&b, nil, p)
	}
	return WriteClean(w, b.String(), p)
}

// render draws this node after the connectors of its ancestors; lastFlags[i] tells whether the
// ancestor at depth i was the last of its siblings (then no vertical bar continues below it).
func (n *Node) render(b *strings.Builder, lastFlags []bool, p Palette) {
	var prefix strings.Builder
	for i, last := range lastFlags {
		if i == len(lastFlags)-1 {
			break
		}
		if last {
			prefix.WriteString("    ")
		} else {
			prefix.WriteString("│   ")
		}
	}
	first, cont := prefix.String(), prefix.String()
	if len(lastFlags) > 0 {
		if lastFlags[len(lastFlags)-1] {
			first, cont = first+"└── ", cont+"    "
		} else {
			first, cont = first+"├── ", cont+"│   "
		}
	}
	n.writeLines(b, first, cont, p)
	for i, c := range n.Children {
		c.render(b, append(append([]bool(nil), lastFlags...), i == len(n.Children)-1), p)
	}
}

func (n *Node) writeLines(b *strings.Builder, first, cont string, p Palette) {
	b.WriteString(first)
	b.WriteString(escape(n.Text, false, p.On))
	b.WriteByte('\n')
	for _, line := range n.More {
		b.WriteString(cont)
		b.WriteString(escape(line, false, p.On))
		b.WriteByte('\n')
	}
}
