package io.verglas.workers.harness;

/**
 * A secret reference that does not resolve where the deployment runs (an environment variable
 * not set, a file missing or unreadable). The message names the secret and its reference,
 * never a value; the run it was read for fails with it, logged in the run's events.
 */
public final class SecretUnavailableException extends RuntimeException {
  public SecretUnavailableException(String message, Throwable cause) {
    super(message, cause);
  }
}
