/**
 * An HTTP client that retries safely: {@link dev.idem.client.IdempotentHttpClient} sends every
 * attempt of one logical request with the same idempotency key, so an idempotent server executes it
 * once and replays the stored response to the repeats. {@link dev.idem.client.IdempotentResponse}
 * reports the attempts and whether the answer was a replay;
 * {@link dev.idem.client.IdempotentRequestFailedException} means no attempt got any response.
 */
package dev.idem.client;
