// Package text holds the string and text tools: string_diff, regex_test,
// template_render and hash_text.
package text

import (
	"context"
	"crypto/md5"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/base64"
	"encoding/hex"
	"hash"

	"github.com/barrhawk/barrhawk/internal/schema"
	"github.com/barrhawk/barrhawk/internal/tool"
)

// Group is the heading these tools are listed under.
const Group = "String/Text"

// Tools returns the family's tools, in the order they are listed.
func Tools() []tool.Tool {
	return []tool.Tool{stringDiff(), regexTest(), templateRender(), hashText()}
}

var hashes = map[string]func() hash.Hash{
	"md5": md5.New, "sha1": sha1.New, "sha256": sha256.New, "sha384": sha512.New384, "sha512": sha512.New,
}

func hashText() tool.Tool {
	type args struct {
		Text      string `json:"text"`
		Algorithm string `json:"algorithm"`
		Encoding  string `json:"encoding"`
	}
	return tool.Tool{
		Def: tool.Def{
			Name:        "hash_text",
			Description: "Hash a text. Returns {algorithm, hash, encoding}.",
			Phrases:     []string{"md5 of a string", "sha256 checksum", "digest of text", "sha1 hash", "fingerprint a string", "sha512 of string"},
			Group:       Group,
			Category:    tool.CategoryUtility,
			Input: schema.Object(
				schema.String("text", "UTF-8 text").Required(),
				schema.String("algorithm", "Algorithm").Enum("md5", "sha1", "sha256", "sha384", "sha512").Default("sha256"),
				schema.String("encoding", "Of the hash").Enum("hex", "base64").Default("hex"),
			),
			RequiresWorker: true,
			Quick:          true,
		},
		Run: tool.Typed(func(_ context.Context, in args, _ *tool.Call) (any, error) {
			if in.Algorithm == "" {
				in.Algorithm = "sha256"
			}
			if in.Encoding == "" {
				in.Encoding = "hex"
			}
			h := hashes[in.Algorithm]()
			h.Write([]byte(in.Text))
			sum := h.Sum(nil)
			out := hex.EncodeToString(sum)
			if in.Encoding == "base64" {
				out = base64.StdEncoding.EncodeToString(sum)
			}
			return map[string]any{"algorithm": in.Algorithm, "hash": out, "encoding": in.Encoding}, nil
		}),
	}
}
