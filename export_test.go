package userinteraction

import "time"

// SignedBytes hands signedBytes to the external tests, which sign its bytes
// as an authenticator would. Each answer is sent as its Options' labels, else
// its Option's, and its Text.
func SignedBytes(nonce string, ids []string, reqs []Request, answers []Answer) []byte {
	labels, texts := make([][]string, len(answers)), make([]string, len(answers))
	for i, a := range answers {
		if texts[i] = a.Text; a.Option != nil {
			labels[i] = []string{a.Option.Label}
		}
		for _, o := range a.Options {
			labels[i] = append(labels[i], o.Label)
		}
	}
	return signedBytes(nonce, ids, reqs, labels, texts)
}

// AgeNonces makes b's nonces older by d, as time passing would.
func AgeNonces(b *Inbox, d time.Duration) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for i := range b.nonces {
		b.nonces[i].at = b.nonces[i].at.Add(-d)
	}
}
