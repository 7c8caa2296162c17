namespace WidgetSigning.Queues;

/// <summary>A blob named by container and blob name (never a URL or SAS: consumers use their own credentials).</summary>
/// <param name="Container">The container name.</param>
/// <param name="Blob">The blob name within the container.</param>
/// <param name="ETag">The version read (a claim check in an output message), so a consumer can tell a replaced claim blob; null where it does not apply.</param>
internal sealed record BlobReference(string Container, string Blob, string? ETag = null);
