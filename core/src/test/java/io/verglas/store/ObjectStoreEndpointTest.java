package io.verglas.store;

import static org.assertj.core.api.Assertions.assertThat;

import io.verglas.access.ObjectGrant;
import io.verglas.access.ScopedTokens;
import io.verglas.access.SessionCredentials;
import io.verglas.access.TableScope;
import java.net.URI;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class ObjectStoreEndpointTest {
  private static final ObjectStoreEndpoint KEYS = new ObjectStoreEndpoint(
      URI.create("http://127.0.0.1:9100"), "us-east-1", "stack-key", "stack-secret", "warehouse");

  @Test
  void aSessionReplacesTheKeysAndReachesS3FileIo() {
    ScopedTokens tokens = new ScopedTokens("0123456789abcdef0123456789abcdef", Clock.systemUTC());
    SessionCredentials session = tokens.session(tokens.mint(new TableScope("d/run",
        Instant.now().plusSeconds(60), Set.of(), Set.of(),
        List.of(ObjectGrant.readWrite("warehouse", "_queues/q/")))));
    ObjectStoreEndpoint scoped = KEYS.withSession(session);
    assertThat(scoped.accessKey()).isEqualTo(session.accessKeyId());
    assertThat(scoped.secretKey()).isEqualTo(session.secretAccessKey());
    assertThat(scoped.sessionToken()).isEqualTo(session.sessionToken());
    assertThat(scoped.endpoint()).isEqualTo(KEYS.endpoint());
    assertThat(scoped.bucket()).isEqualTo("warehouse");
    assertThat(scoped.s3FileIoProperties()).containsEntry("s3.session-token", session.sessionToken());
    assertThat(KEYS.s3FileIoProperties()).doesNotContainKey("s3.session-token");
    assertThat(scoped.toString()).doesNotContain(session.secretAccessKey())
        .doesNotContain(session.sessionToken()).contains("session");
    assertThat(KEYS.toString()).doesNotContain("stack-secret");
  }
}
