package gateway

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/barrhawk/barrhawk/internal/tool"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// An upstream's tool result becomes ours: its content parts (text,
// images, audio; resources as text saying what they are), which the front
// bounds as it bounds any result. A result without content but with
// structuredContent is that JSON value. isError becomes TOOL_ERROR with
// the result's text. toContent reads the SDK's result (HTTP upstreams),
// decodeResult the raw JSON of a stdio upstream's answer.

// toContent turns a result the SDK decoded into ours.
func toContent(res *mcp.CallToolResult) (any, error) {
	parts := make([]tool.Part, 0, len(res.Content))
	for _, c := range res.Content {
		switch x := c.(type) {
		case *mcp.TextContent:
			parts = append(parts, tool.TextPart(x.Text))
		case *mcp.ImageContent:
			parts = append(parts, tool.ImagePart(x.Data, x.MIMEType))
		case *mcp.AudioContent:
			parts = append(parts, tool.Part{Type: "audio", Data: x.Data, MIMEType: x.MIMEType})
		case *mcp.ResourceLink:
			parts = append(parts, linkPart(x.URI, x.Name, x.MIMEType))
		case *mcp.EmbeddedResource:
			if r := x.Resource; r != nil {
				parts = append(parts, resourcePart(r.URI, r.MIMEType, r.Text, r.Blob))
			}
		default:
			b, _ := json.Marshal(c)
			parts = append(parts, tool.TextPart(string(b)))
		}
	}
	var structured json.RawMessage
	if res.StructuredContent != nil {
		b, err := json.Marshal(res.StructuredContent)
		if err != nil {
			return nil, tool.Errorf(tool.CodeUpstreamError, "the upstream's structuredContent is not JSON: %v", err)
		}
		structured = b
	}
	return result(parts, res.IsError, structured)
}

// wireResult is a CallToolResult as it travels.
type wireResult struct {
	Content []struct {
		Type     string `json:"type"`
		Text     string `json:"text"`
		Data     []byte `json:"data"`
		MIMEType string `json:"mimeType"`
		URI      string `json:"uri"`
		Name     string `json:"name"`
		Resource *struct {
			URI      string `json:"uri"`
			MIMEType string `json:"mimeType"`
			Text     string `json:"text"`
			Blob     []byte `json:"blob"`
		} `json:"resource"`
	} `json:"content"`
	StructuredContent json.RawMessage `json:"structuredContent"`
	IsError           bool            `json:"isError"`
}

// decodeResult turns the JSON of a tools/call result into ours.
func decodeResult(raw json.RawMessage) (any, error) {
	var w wireResult
	if err := json.Unmarshal(raw, &w); err != nil {
		return nil, tool.Errorf(tool.CodeUpstreamError, "the upstream's tools/call result is not a CallToolResult: %v", err)
	}
	parts := make([]tool.Part, 0, len(w.Content))
	for _, c := range w.Content {
		switch c.Type {
		case "text":
			parts = append(parts, tool.TextPart(c.Text))
		case "image", "audio":
			parts = append(parts, tool.Part{Type: c.Type, Data: c.Data, MIMEType: c.MIMEType})
		case "resource_link":
			parts = append(parts, linkPart(c.URI, c.Name, c.MIMEType))
		case "resource":
			if r := c.Resource; r != nil {
				parts = append(parts, resourcePart(r.URI, r.MIMEType, r.Text, r.Blob))
			}
		default:
			parts = append(parts, tool.TextPart(fmt.Sprintf("[%s content, not shown]", c.Type)))
		}
	}
	if string(w.StructuredContent) == "null" {
		w.StructuredContent = nil
	}
	return result(parts, w.IsError, w.StructuredContent)
}

func linkPart(uri, name, mime string) tool.Part {
	return tool.TextPart(fmt.Sprintf("[resource link] %s (%s%s)", uri, name, mimeNote(mime)))
}

func resourcePart(uri, mime, text string, blob []byte) tool.Part {
	if text != "" || len(blob) == 0 {
		return tool.TextPart(text)
	}
	return tool.TextPart(fmt.Sprintf("[embedded resource] %s: %d bytes%s, not shown", uri, len(blob), mimeNote(mime)))
}

// result is the call's answer made of its parts.
func result(parts []tool.Part, isError bool, structured json.RawMessage) (any, error) {
	if isError {
		var texts []string
		for _, p := range parts {
			if p.Type == "text" {
				texts = append(texts, p.Text)
			}
		}
		msg := strings.Join(texts, "\n")
		if msg == "" {
			msg = "the upstream tool reported an error and said nothing more"
		}
		return nil, &tool.Error{Code: tool.CodeToolError, Message: msg}
	}
	if len(parts) == 0 && structured != nil {
		return structured, nil
	}
	return &tool.Content{Parts: parts}, nil
}

func mimeNote(m string) string {
	if m == "" {
		return ""
	}
	return ", " + m
}
