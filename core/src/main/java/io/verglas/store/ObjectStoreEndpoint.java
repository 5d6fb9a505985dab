package io.verglas.store;

import java.io.Serializable;
import java.net.URI;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.function.Consumer;
import io.verglas.access.SessionCredentials;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.AwsCredentials;
import software.amazon.awssdk.auth.credentials.AwsSessionCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.core.checksums.ResponseChecksumValidation;
import software.amazon.awssdk.core.client.config.ClientOverrideConfiguration;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.S3Configuration;

/**
 * An S3 endpoint with its credentials and the bucket Verglas uses: the cache node in front of
 * the origin, or the origin itself. Serializable so Flink jobs can carry it.
 *
 * @param sessionToken null for a stack's long-lived keys; the session token of STS-style session
 *     credentials otherwise (a worker run's, see {@link #withSession})
 */
public record ObjectStoreEndpoint(URI endpoint, String region, String accessKey,
    String secretKey, String bucket, String sessionToken) implements Serializable {

  public ObjectStoreEndpoint {
    Objects.requireNonNull(endpoint, "endpoint");
    Objects.requireNonNull(region, "region");
    Objects.requireNonNull(accessKey, "accessKey");
    Objects.requireNonNull(secretKey, "secretKey");
    Objects.requireNonNull(bucket, "bucket");
  }

  /** An endpoint reached with long-lived keys (no session token). */
  public ObjectStoreEndpoint(URI endpoint, String region, String accessKey, String secretKey,
      String bucket) {
    this(endpoint, region, accessKey, secretKey, bucket, null);
  }

  /** This endpoint reached with {@code session} instead of its keys. */
  public ObjectStoreEndpoint withSession(SessionCredentials session) {
    return new ObjectStoreEndpoint(endpoint, region, session.accessKeyId(),
        session.secretAccessKey(), bucket, session.sessionToken());
  }

  private AwsCredentials credentials() {
    return sessionToken == null ? AwsBasicCredentials.create(accessKey, secretKey)
        : AwsSessionCredentials.create(accessKey, secretKey, sessionToken);
  }

  /**
   * A client for this endpoint. Checksums only where an operation requires them: over plain
   * HTTP the SDK otherwise streams every PUT as aws-chunked with a SigV4 signature per 64 KiB
   * chunk plus a CRC32 trailer, which cost a third of a WAL lane's CPU; without it the signature
   * covers the whole body's SHA-256 (computed once), which protects the payload all the same,
   * and WAL segments and Parquet files carry their own checksums besides.
   */
  public S3Client newClient() {
    return newClient(override -> {});
  }

  /** {@link #newClient()} with more client settings (interceptors, say). */
  public S3Client newClient(Consumer<ClientOverrideConfiguration.Builder> override) {
    return S3Client.builder()
        .overrideConfiguration(override)
        .endpointOverride(endpoint)
        .forcePathStyle(true)
        .region(Region.of(region))
        .credentialsProvider(StaticCredentialsProvider.create(credentials()))
        .httpClient(UrlConnectionHttpClient.create())
        .requestChecksumCalculation(RequestChecksumCalculation.WHEN_REQUIRED)
        .responseChecksumValidation(ResponseChecksumValidation.WHEN_REQUIRED)
        .serviceConfiguration(S3Configuration.builder().chunkedEncodingEnabled(false).build())
        .build();
  }

  /**
   * Properties that make Iceberg's S3FileIO reach this endpoint: standard ones only, which any
   * Iceberg client accepts unchanged (our processes add their own through
   * {@code Catalogs.forOurProcesses}).
   */
  public Map<String, String> s3FileIoProperties() {
    Map<String, String> props = new LinkedHashMap<>();
    props.put("io-impl", "org.apache.iceberg.aws.s3.S3FileIO");
    props.put("s3.endpoint", endpoint.toString());
    props.put("s3.path-style-access", "true");
    props.put("s3.access-key-id", accessKey);
    props.put("s3.secret-access-key", secretKey);
    if (sessionToken != null) {
      props.put("s3.session-token", sessionToken);
    }
    props.put("client.region", region);
    return props;
  }

  public String warehouse() {
    return "s3://" + bucket + "/";
  }

  @Override
  public String toString() {
    // never the secret key nor the session token
    return "ObjectStoreEndpoint[" + endpoint + ", region=" + region + ", accessKey=" + accessKey
        + ", bucket=" + bucket + (sessionToken == null ? "" : ", session") + "]";
  }
}
