package io.verglas.cache.compat;

import io.verglas.cache.origin.Origin;
import io.verglas.cache.origin.azure.AzureOrigin;
import io.verglas.cache.origin.azure.AzuriteExtension;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The compatibility spec with Azure Blob Storage as origin: Azurite, through {@link AzureOrigin}. */
class AzureOriginCompatibilityTest extends S3CompatibilitySpec {
  @RegisterExtension static final AzuriteExtension AZURITE = new AzuriteExtension();

  @Override
  protected Origin newOrigin() {
    return AZURITE.sharedKeyOrigin();
  }
}
