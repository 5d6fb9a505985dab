package io.verglas.cli.local;

import io.verglas.cache.origin.LocalDirectoryOrigin;
import io.verglas.cache.origin.Origin;
import io.verglas.cache.origin.azure.AzureOrigin;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;

/**
 * Where the local stack keeps its objects, as {@code --origin} names it: {@code local} (the
 * default: the data directory's {@code origin/}) or
 * {@code azure://ACCOUNT/CONTAINER[?endpoint=URL]}, an Azure Blob Storage container that then is
 * the stack's bucket. Azure credentials come from the environment, never from the command line:
 * {@value #AZURE_KEY} (the account's shared key) or {@value #AZURE_SAS} (a SAS token).
 * {@code endpoint} replaces {@code https://ACCOUNT.blob.core.windows.net}, for Azurite
 * ({@code http://127.0.0.1:10000/devstoreaccount1}) or a private endpoint.
 */
public sealed interface OriginSpec permits OriginSpec.Local, OriginSpec.Azure {
  String AZURE_KEY = "AZURE_STORAGE_KEY";
  String AZURE_SAS = "AZURE_STORAGE_SAS_TOKEN";

  /** The bucket this origin dictates (an Azure container), if any. */
  Optional<String> bucket();

  /** Opens the origin; the caller closes it. */
  Origin open(Path localDirectory, Map<String, String> env);

  /** The data directory's {@code origin/} directory. */
  record Local() implements OriginSpec {
    @Override
    public Optional<String> bucket() {
      return Optional.empty();
    }

    @Override
    public Origin open(Path localDirectory, Map<String, String> env) {
      return new LocalDirectoryOrigin(localDirectory);
    }

    @Override
    public String toString() {
      return "local";
    }
  }

  /** One container of an Azure storage account. */
  record Azure(String account, String container, URI endpoint) implements OriginSpec {
    @Override
    public Optional<String> bucket() {
      return Optional.of(container);
    }

    @Override
    public Origin open(Path localDirectory, Map<String, String> env) {
      String key = env.get(AZURE_KEY);
      String sas = env.get(AZURE_SAS);
      if ((key == null || key.isEmpty()) == (sas == null || sas.isEmpty())) {
        throw new IllegalArgumentException("Cannot use the origin " + this + ": set exactly one of "
            + AZURE_KEY + " (the account's shared key) and " + AZURE_SAS + " (a SAS token)");
      }
      AzureOrigin.Builder builder = AzureOrigin.builder().account(account);
      if (endpoint != null) {
        builder.endpoint(endpoint);
      }
      return (key != null && !key.isEmpty() ? builder.sharedKey(key) : builder.sasToken(sas)).build();
    }

    @Override
    public String toString() {
      return "azure://" + account + "/" + container + (endpoint == null ? "" : "?endpoint=" + endpoint);
    }
  }

  static OriginSpec parse(String value) {
    if (value == null || value.equals("local")) {
      return new Local();
    }
    if (!value.startsWith("azure://")) {
      throw new IllegalArgumentException("Invalid origin: " + value
          + " (local, or azure://ACCOUNT/CONTAINER[?endpoint=URL])");
    }
    try {
      return azure(new URI(value));
    } catch (URISyntaxException e) {
      throw new IllegalArgumentException("Invalid origin: not a URI (" + e.getReason() + " at index "
          + e.getIndex() + ")", e);
    }
  }

  private static Azure azure(URI uri) {
    String account = uri.getAuthority();
    String path = uri.getPath() == null ? "" : uri.getPath();
    String shown = "azure://" + account + path;   // never the query: it could hold a secret
    if (account == null || !account.matches("[a-z0-9]{3,24}")) {
      throw new IllegalArgumentException("Invalid origin " + shown + ": the storage account must be 3 to 24 "
          + "lower-case letters and digits");
    }
    String container = path.startsWith("/") ? path.substring(1) : path;
    if (!container.matches("[a-z0-9](?!.*--)[a-z0-9-]{1,61}[a-z0-9]")) {
      throw new IllegalArgumentException("Invalid origin " + shown + ": name one container, 3 to 63 lower-case "
          + "letters, digits and single hyphens (azure://ACCOUNT/CONTAINER)");
    }
    return new Azure(account, container, endpoint(uri, shown));
  }

  private static URI endpoint(URI uri, String shown) {
    String query = uri.getRawQuery();
    if (query == null || query.isEmpty()) {
      return null;
    }
    URI endpoint = null;
    for (String parameter : query.split("&")) {
      int eq = parameter.indexOf('=');
      String name = eq < 0 ? parameter : parameter.substring(0, eq);
      if (!name.equals("endpoint") || eq < 0) {
        throw new IllegalArgumentException("Invalid origin " + shown + ": unknown parameter '" + name
            + "' (the only one is endpoint=URL)");
      }
      endpoint = URI.create(URLDecoder.decode(parameter.substring(eq + 1), StandardCharsets.UTF_8));
      if (!"http".equals(endpoint.getScheme()) && !"https".equals(endpoint.getScheme())) {
        throw new IllegalArgumentException("Invalid origin " + shown + ": the endpoint must be an http or https URL");
      }
    }
    return endpoint;
  }
}
