namespace WidgetSigning.Keys;

/// <summary>One page of the receivers a key source knows, in the source's order.</summary>
/// <param name="Receivers">The receivers on this page.</param>
/// <param name="NextPageToken">Where the next page starts (opaque), or null on the last page.</param>
internal sealed record ReceiverPage(IReadOnlyList<ReceiverId> Receivers, string? NextPageToken);
