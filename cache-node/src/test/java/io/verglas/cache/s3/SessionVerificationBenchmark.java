package io.verglas.cache.s3;

import io.verglas.access.ObjectGrant;
import io.verglas.access.ScopedTokens;
import io.verglas.access.SessionCredentials;
import io.verglas.access.TableScope;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The session token check of one S3 request: verified from scratch
 * ({@link ScopedTokens#verifySession}: HMAC per accepted key, JSON parse, secret derivation)
 * against a hit of {@link VerifiedSessions} (digest, look-up, expiry and access key id check), with
 * a verifier that accepts a current and one previous key and a token of 8 object grants. Run:
 * {@code mvn -B -Pjmh -pl cache-node -am verify -DskipTests
 * -Djmh.args="SessionVerificationBenchmark"}. On the 2-core development machine (short run: 1
 * warmup, 2 measured iterations of 1 s, {@code org.openjdk.jmh.Main} on the test classpath):
 * cached 0.69 µs, uncached 8.2 µs per request.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 3, time = 1)
@Fork(1)
public class SessionVerificationBenchmark {
  private ScopedTokens tokens;
  private VerifiedSessions cached;
  private SessionCredentials credentials;

  @Setup
  public void setUp() {
    tokens = new ScopedTokens("0123456789abcdef0123456789abcdef",
        List.of("fedcba9876543210fedcba9876543210"), Clock.systemUTC());
    List<ObjectGrant> grants = new java.util.ArrayList<>();
    for (int i = 0; i < 8; i++) {
      grants.add(ObjectGrant.readWrite("warehouse", "_queues/q" + i + "/"));
    }
    credentials = tokens.session(tokens.mint(new TableScope("hourly/run-1",
        Instant.now().plusSeconds(3600), Set.of(), Set.of(), grants)));
    cached = new VerifiedSessions(tokens, Clock.systemUTC(), 1000);
    cached.verify(credentials.accessKeyId(), credentials.sessionToken());
  }

  @Benchmark
  public SessionCredentials uncached() {
    return tokens.verifySession(credentials.accessKeyId(), credentials.sessionToken());
  }

  @Benchmark
  public SessionCredentials cached() {
    return cached.verify(credentials.accessKeyId(), credentials.sessionToken());
  }
}
