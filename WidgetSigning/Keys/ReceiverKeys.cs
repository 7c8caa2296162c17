namespace WidgetSigning.Keys;

/// <summary>A receiver and the keys its signatures are made with now: the current one and any staged ones.</summary>
/// <param name="Receiver">Who the signatures are for.</param>
/// <param name="Keys">Its current key and staged keys.</param>
internal sealed record ReceiverKeys(ReceiverId Receiver, SigningKeys Keys);
