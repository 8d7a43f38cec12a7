package tool

import (
	"bytes"
	"encoding/json"
)

// Content is a result made of MCP content parts (text and images) rather
// than one JSON value: a screenshot and its metadata, say. It travels from
// the Igor as {"$content": [parts]} and the front turns it into the MCP
// result's content list.
type Content struct {
	Parts []Part `json:"$content"`
}

// Part is one content part: text, or an image or audio (Data is its
// bytes, sent base64 as MCP says).
type Part struct {
	Type     string `json:"type"` // "text", "image" or "audio"
	Text     string `json:"text,omitempty"`
	Data     []byte `json:"data,omitempty"`
	MIMEType string `json:"mimeType,omitempty"`
}

// TextPart is a text part.
func TextPart(s string) Part { return Part{Type: "text", Text: s} }

// ImagePart is an image part.
func ImagePart(data []byte, mime string) Part { return Part{Type: "image", Data: data, MIMEType: mime} }

// contentPrefix starts the JSON of a Content.
var contentPrefix = []byte(`{"$content":`)

// AsContent reports whether an encoded result is a Content, and decodes it.
func AsContent(raw json.RawMessage) (*Content, bool) {
	if !bytes.HasPrefix(raw, contentPrefix) {
		return nil, false
	}
	var c Content
	if json.Unmarshal(raw, &c) != nil {
		return nil, false
	}
	return &c, true
}
