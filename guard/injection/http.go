package injection

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
)

// HTTP is a Detector that asks a sequence classifier served over HTTP,
// in the form of text-embeddings-inference's /predict: it posts
// {"inputs": [["text 1"], ["text 2"], ...]} and reads, for each text, a
// list of {"label", "score"}. A text's score is the highest score among
// the labels named in Labels (a Prompt Guard model's "INJECTION" and
// "JAILBREAK", or "MALICIOUS"). Serve, say, meta-llama/Prompt-Guard-86M
// with text-embeddings-inference and point URL at its /predict.
type HTTP struct {
	// URL is the endpoint, e.g. "http://localhost:8080/predict".
	URL string
	// Labels are the labels that mean injection; empty means
	// "INJECTION", "JAILBREAK" and "MALICIOUS" (case does not matter).
	Labels []string
	// Client makes the requests; nil uses http.DefaultClient. Set its
	// Timeout: Detect waits as long as ctx allows.
	Client *http.Client
	// Header is added to every request (an Authorization header, say).
	Header http.Header
}

// Name implements Detector.
func (h *HTTP) Name() string { return "http(" + h.URL + ")" }

// maxResponse bounds the response body read.
const maxResponse = 8 << 20

// Detect implements Detector.
func (h *HTTP) Detect(ctx context.Context, texts []string) ([]Verdict, error) {
	if len(texts) == 0 {
		return nil, nil
	}
	inputs := make([][]string, len(texts))
	for i, t := range texts {
		inputs[i] = []string{t}
	}
	body, err := json.Marshal(map[string]any{"inputs": inputs})
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, h.URL, bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("injection: %s: %w", h.URL, err)
	}
	req.Header.Set("Content-Type", "application/json")
	for k, vs := range h.Header {
		for _, v := range vs {
			req.Header.Add(k, v)
		}
	}
	c := h.Client
	if c == nil {
		c = http.DefaultClient
	}
	resp, err := c.Do(req)
	if err != nil {
		return nil, fmt.Errorf("injection: %s: %w", h.URL, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxResponse+1))
	if err != nil {
		return nil, fmt.Errorf("injection: %s: reading the response: %w", h.URL, err)
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("injection: %s answered %s: %s", h.URL, resp.Status, clip(strings.TrimSpace(string(data))))
	}
	if len(data) > maxResponse {
		return nil, fmt.Errorf("injection: %s: the response is over %d bytes", h.URL, maxResponse)
	}
	var got [][]struct {
		Label string  `json:"label"`
		Score float64 `json:"score"`
	}
	if err := json.Unmarshal(data, &got); err != nil {
		return nil, fmt.Errorf("injection: %s: want a list of [{label, score}] per text: %w", h.URL, err)
	}
	if len(got) != len(texts) {
		return nil, fmt.Errorf("injection: %s gave %d results for %d texts", h.URL, len(got), len(texts))
	}
	labels := h.Labels
	if len(labels) == 0 {
		labels = []string{"INJECTION", "JAILBREAK", "MALICIOUS"}
	}
	out := make([]Verdict, len(texts))
	for i, scores := range got {
		for _, s := range scores {
			if !slices.ContainsFunc(labels, func(l string) bool { return strings.EqualFold(l, s.Label) }) || s.Score < 0 || s.Score > 1 {
				continue
			}
			if s.Score > out[i].Score {
				out[i].Score = round(s.Score)
				out[i].Signals = []Signal{{Name: "classifier", Weight: round(s.Score), Match: s.Label}}
			}
		}
	}
	return out, nil
}
