package userinteraction

// SignedBytes hands signedBytes to the external tests, which sign its bytes
// as an authenticator would.
var SignedBytes = signedBytes
