namespace FunctionApp.Queues;

/// <summary>How message text travels on the queues; producers, the trigger and consumers must agree.</summary>
public enum QueueMessageEncoding
{
    /// <summary>The message text is base64 of the UTF-8 JSON (the default of the Functions queue extension 5.x and of the Azure portal).</summary>
    Base64 = 0,

    /// <summary>The message text is the UTF-8 JSON itself.</summary>
    None = 1,
}
