package browser

import "encoding/json"

func jsonUnmarshalBytes(b []byte, v any) error { return json.Unmarshal(b, v) }
