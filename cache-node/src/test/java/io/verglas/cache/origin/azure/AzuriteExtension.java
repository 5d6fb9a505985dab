package io.verglas.cache.origin.azure;

import com.azure.storage.blob.BlobServiceClient;
import com.azure.storage.blob.BlobServiceClientBuilder;
import com.azure.storage.common.StorageSharedKeyCredential;
import com.azure.storage.common.sas.AccountSasPermission;
import com.azure.storage.common.sas.AccountSasResourceType;
import com.azure.storage.common.sas.AccountSasService;
import com.azure.storage.common.sas.AccountSasSignatureValues;
import java.io.File;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.OffsetDateTime;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Azurite's blob service as a child process on 127.0.0.1, for one test class: register it as a
 * static {@code @RegisterExtension} field. It runs {@code azurite-blob} from the PATH (or
 * {@code $AZURITE_BLOB}) on a free port with its data in a temporary directory, and stops it after
 * the class. Without the binary the class is skipped with a message saying how to install it
 * ({@code .ci/run} installs it, so CI never skips).
 */
public final class AzuriteExtension implements ExecutionCondition, BeforeAllCallback, AfterAllCallback {
  private static final String NOT_INSTALLED = "Azurite is not installed: the Azure origin tests need "
      + "'azurite-blob' on the PATH (npm install -g azurite; .ci/run installs it) or $AZURITE_BLOB";

  /** Azurite's well-known development account and key (public, emulator only). */
  public static final String ACCOUNT = "devstoreaccount1";
  public static final String KEY =
      "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==";

  private Process process;
  private Thread stopAtExit;
  private Path dir;
  private int port;

  /** Skips the class, saying why, when there is no Azurite to run. */
  @Override
  public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
    return binary().isPresent() ? ConditionEvaluationResult.enabled("Azurite found")
        : ConditionEvaluationResult.disabled(NOT_INSTALLED);
  }

  @Override
  public void beforeAll(ExtensionContext context) throws Exception {
    Optional<Path> binary = binary();
    Assumptions.assumeTrue(binary.isPresent(), NOT_INSTALLED);
    dir = Files.createTempDirectory("azurite-");
    IOException last = null;
    for (int attempt = 0; attempt < 3; attempt++) {
      try {
        start(binary.get());
        return;
      } catch (IOException e) {
        last = e;   // most likely the free port was taken meanwhile
        stopProcess();
      }
    }
    throw last;
  }

  @Override
  public void afterAll(ExtensionContext context) throws Exception {
    stopProcess();
    if (dir != null) {
      try (Stream<Path> files = Files.walk(dir)) {
        for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
          Files.deleteIfExists(p);
        }
      }
    }
  }

  /** The blob endpoint of the development account, path style. */
  public URI endpoint() {
    return URI.create("http://127.0.0.1:" + port + "/" + ACCOUNT);
  }

  /** An origin on this Azurite with the account's shared key. */
  public AzureOrigin sharedKeyOrigin() {
    return AzureOrigin.builder().endpoint(endpoint()).account(ACCOUNT).sharedKey(KEY).build();
  }

  /** The SDK's own client for the account, with its shared key: to set up what tests need. */
  public BlobServiceClient adminClient() {
    return new BlobServiceClientBuilder().endpoint(endpoint().toString())
        .credential(new StorageSharedKeyCredential(ACCOUNT, KEY)).buildClient();
  }

  /** An account SAS for the blob service (all resource types, all permissions), valid an hour. */
  public String accountSas() {
    return adminClient().generateAccountSas(new AccountSasSignatureValues(OffsetDateTime.now().plusHours(1),
        AccountSasPermission.parse("rwdlacup"), new AccountSasService().setBlobAccess(true),
        new AccountSasResourceType().setService(true).setContainer(true).setObject(true)));
  }

  private void start(Path binary) throws IOException, InterruptedException {
    port = freePort();
    Path log = dir.resolve("azurite-" + port + ".log");
    process = new ProcessBuilder(List.of(binary.toString(), "--blobHost", "127.0.0.1",
        "--blobPort", Integer.toString(port), "--location", dir.resolve("data").toString(),
        "--skipApiVersionCheck", "--loose", "--disableProductStyleUrl", "--disableTelemetry", "--silent"))
        .redirectErrorStream(true)
        .redirectOutput(log.toFile())
        .start();
    // a test JVM that exits before afterAll must not leave Azurite running
    Process started = process;
    stopAtExit = new Thread(() -> {
      started.descendants().forEach(ProcessHandle::destroyForcibly);
      started.destroyForcibly();
    }, "azurite-stop");
    Runtime.getRuntime().addShutdownHook(stopAtExit);
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (System.nanoTime() < deadline) {
      if (!process.isAlive()) {
        throw new IOException("Azurite exited with " + process.exitValue() + ": " + Files.readString(log));
      }
      if (accepts(port)) {
        return;
      }
      Thread.sleep(50);
    }
    throw new IOException("Azurite did not listen on port " + port + " within 60 s: " + Files.readString(log));
  }

  private void stopProcess() throws InterruptedException {
    if (process == null) {
      return;
    }
    try {
      Runtime.getRuntime().removeShutdownHook(stopAtExit);
    } catch (IllegalStateException shuttingDown) {
      // the hook runs anyway
    }
    process.descendants().forEach(ProcessHandle::destroy);
    process.destroy();
    if (!process.waitFor(10, TimeUnit.SECONDS)) {
      process.descendants().forEach(ProcessHandle::destroyForcibly);
      process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
    }
    process = null;
  }

  private static Optional<Path> binary() {
    String explicit = System.getenv("AZURITE_BLOB");
    if (explicit != null && Files.isExecutable(Path.of(explicit))) {
      return Optional.of(Path.of(explicit));
    }
    String path = System.getenv().getOrDefault("PATH", "");
    for (String d : path.split(File.pathSeparator)) {
      Path candidate = Path.of(d.isEmpty() ? "." : d, "azurite-blob");
      if (Files.isExecutable(candidate)) {
        return Optional.of(candidate);
      }
    }
    return Optional.empty();
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket()) {
      s.bind(new InetSocketAddress("127.0.0.1", 0));
      return s.getLocalPort();
    }
  }

  private static boolean accepts(int port) {
    try (Socket s = new Socket()) {
      s.connect(new InetSocketAddress("127.0.0.1", port), 200);
      return true;
    } catch (IOException e) {
      return false;
    }
  }
}
