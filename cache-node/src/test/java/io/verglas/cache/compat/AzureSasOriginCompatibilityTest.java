package io.verglas.cache.compat;

import io.verglas.cache.origin.Origin;
import io.verglas.cache.origin.azure.AzureOrigin;
import io.verglas.cache.origin.azure.AzuriteExtension;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The compatibility spec with Azure as origin, authenticated by an account SAS instead of the key. */
class AzureSasOriginCompatibilityTest extends S3CompatibilitySpec {
  @RegisterExtension static final AzuriteExtension AZURITE = new AzuriteExtension();

  @Override
  protected Origin newOrigin() {
    return AzureOrigin.builder().endpoint(AZURITE.endpoint()).sasToken(AZURITE.accountSas()).build();
  }
}
